#include "models/scylla/cluster.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/scylla/shuffle_shard.hpp"
#include "sim/trace.hpp"

namespace scylla {
namespace {
constexpr ShardId kNoRoute = std::numeric_limits<ShardId>::max();
}

// One client request. Pooled; its index in all_ops_ is in every task cookie it owns.
struct ScyllaCluster::Op final : sim::Handler {
  enum class Stage : std::uint8_t { Coordinate, Replicate, Reply };
  ScyllaCluster* cluster = nullptr;
  WriteSink* sink = nullptr;
  std::uint64_t tag = 0;
  sim::Time start = 0;
  PartitionKey key = 0;
  ShardId coordinator = 0;
  std::uint32_t rows = 0;
  std::uint32_t via = kDriverChoice;  // the replica the client chose to coordinate
  std::uint32_t index = 0;
  std::uint32_t epoch = 0;  // bumped when freed or parked: older timeout entries are stale
  bool is_read = false;
  bool waited = false;   // found too few live replicas at least once
  bool replied = false;  // the client has its answer (done or timed out)
  Stage stage = Stage::Coordinate;
  std::uint8_t sent = 0;         // replica tasks sent
  std::uint8_t known = 0;        // replies whose instant is known
  std::uint8_t outstanding = 0;  // tasks (coordinator step, replicas) a shard will report
  std::uint8_t wait_for = 0;     // replies the coordinator needs
  std::uint32_t pending_events = 0;
  sim::Time finish_at = sim::kTimeMax;  // the client's answer, once decided
  sim::Time speculate_at = sim::kTimeMax;  // a read's speculative retry, while pending
  ShardId spare = 0;                       // the replica it would go to
  sim::Time reply_at[16];               // per slot, kTimeMax while unknown
  // The key's replicas, copied from the route table when the op starts: the table is read
  // once per op (a cache miss over a large keyspace), not again at each stage.
  ShardId route[16];
  ShardId sent_to[16];
  sim::Duration work[16];  // for the trace

  void on_event(sim::Simulation& s) override {
    --pending_events;
    if (stage == Stage::Replicate) {
      cluster->replicate(this);
    } else if (stage == Stage::Reply && !replied && s.now() == finish_at) {
      cluster->finish(this);
    } else if (stage == Stage::Reply && !replied && s.now() == speculate_at) {
      cluster->speculate(this);
    }
    cluster->maybe_free(this);
  }
};

// One shard: its reactor plus the lazily generated work nobody waits for (the fleet's
// background, hyper-written partitions, compaction triggers). Its own event fires at the
// reactor's next decision while a task someone waits for is queued.
struct ScyllaCluster::Shard final : sim::Handler {
  ScyllaCluster* cluster = nullptr;
  ShardId id = 0;
  Reactor cpu;
  sim::Time next_background = sim::kTimeMax;
  sim::Time next_compaction = sim::kTimeMax;
  sim::Time purged = 0;               // rows shadowed before this instant are compacted away
  sim::Time compaction_snapshot = 0;  // the running compaction's start
  bool compacting = false;
  double rows_since_compaction = 0;   // rows written since the running/last compaction began
  double admitted_ns = 0;             // work offered so far
  std::uint64_t statement_ops = 0;    // statement tasks given (not the fluid background)
  sim::Time event_at = sim::kTimeMax;

  explicit Shard(const ReactorConfig* rc) : cpu(rc) {}
  // When a statement task of `service` queued now would end, if certain (else kTimeMax). The
  // only other group's work the cluster queues is compaction, due at next_compaction.
  sim::Time certain_end(sim::Time now, sim::Duration service) const {
    return cpu.certain_completion(now, Group::Statement, service, next_compaction);
  }
  std::uint32_t queued_events = 0;  // entries in the kernel's queue, superseded ones included
  bool advancing = false;           // inside advance() for this shard

  void on_event(sim::Simulation& s) override {
    --queued_events;
    if (s.now() != event_at) return;  // superseded
    event_at = sim::kTimeMax;
    cluster->on_shard_event(*this);
  }
};

// Timeouts, in deadline order (every deadline is now + the same timeout, so a FIFO is sorted).
// One event armed at a time, at the oldest op still waiting; answered ops are dropped lazily.
struct ScyllaCluster::TimeoutWheel final : sim::Handler {
  struct Entry {
    Op* op;
    std::uint32_t epoch;
    sim::Time fire_at;
  };
  ScyllaCluster* cluster = nullptr;
  std::deque<Entry> q;
  sim::Time armed_at = sim::kTimeMax;

  static bool stale(const Entry& e) { return e.op->epoch != e.epoch || e.op->replied; }
  void on_event(sim::Simulation& s) override {
    if (s.now() != armed_at) return;
    armed_at = sim::kTimeMax;
    while (!q.empty() && (stale(q.front()) || q.front().fire_at <= s.now())) {
      const Entry e = q.front();
      q.pop_front();
      if (!stale(e)) cluster->time_out(e.op);
    }
    if (!q.empty()) {
      armed_at = q.front().fire_at;
      s.schedule_at(armed_at, *this);
    }
  }
};

Consistency parse_consistency(std::string_view s) {
  if (s == "ONE") {
    return Consistency::One;
  }
  if (s == "QUORUM") {
    return Consistency::Quorum;
  }
  if (s == "LOCAL_QUORUM") {
    return Consistency::LocalQuorum;
  }
  if (s == "ALL") {
    return Consistency::All;
  }
  throw std::invalid_argument("scylla: unknown consistency level '" + std::string(s) +
                              "' (expected ONE, QUORUM, LOCAL_QUORUM or ALL)");
}

Placement parse_placement(std::string_view s) {
  if (s == "token_ring") {
    return Placement::TokenRing;
  }
  if (s == "shuffle_shard") {
    return Placement::ShuffleShard;
  }
  throw std::invalid_argument("scylla: unknown placement '" + std::string(s) +
                              "' (expected token_ring or shuffle_shard)");
}

std::uint32_t replies_needed(Consistency cl, std::uint32_t rf) {
  switch (cl) {
    case Consistency::One:
      return 1;
    case Consistency::Quorum:
    case Consistency::LocalQuorum:
      return rf / 2 + 1;
    case Consistency::All:
      return rf;
  }
  return rf;
}

void TimelineCostModel::validate() const {
  if (write_service_mean <= 0 || row_scan_cost < 0 || compaction_interval <= 0 ||
      compaction_row_cost < 0) {
    throw std::invalid_argument(
        "scylla: timeline write_service_mean and compaction_interval must be > 0, "
        "row_scan_cost and compaction_row_cost >= 0");
  }
}

void ScyllaConfig::validate() const {
  if (nodes == 0 || shards_per_node == 0 || num_tokens == 0) {
    throw std::invalid_argument("scylla: nodes, shards_per_node and num_tokens must be >= 1");
  }
  if (rf == 0 || rf > (placement == Placement::TokenRing ? nodes : total_shards())) {
    throw std::invalid_argument("scylla: replication_factor " + std::to_string(rf) +
                                " must be between 1 and the number of nodes");
  }
  if (ignore_msb >= 64) {
    throw std::invalid_argument("scylla: sharding_ignore_msb must be < 64");
  }
  if (!(scale > 0.0 && scale <= 1.0)) {
    throw std::invalid_argument("scylla: scale must be in (0, 1], got " + std::to_string(scale));
  }
  if (background_writes_per_s < 0) {
    throw std::invalid_argument("scylla: background_writes_per_s must be >= 0");
  }
  if (client_rtt < 0 || replica_rtt < 0 || coordinator_service_mean < 0 ||
      read_service_mean < 0) {
    throw std::invalid_argument("scylla: delays and service times must be >= 0");
  }
  if (write_timeout <= 0 || read_timeout <= 0 || speculative_retry < 0) {
    throw std::invalid_argument(
        "scylla: write_timeout and read_timeout must be > 0, speculative_retry >= 0");
  }
  if (rf > 16) {
    throw std::invalid_argument("scylla: replication_factor must be <= 16");
  }
  timeline.validate();
  reactor.validate();
}

ScyllaCluster::ScyllaCluster(sim::Simulation& sim, ScyllaConfig cfg, std::uint32_t partitions,
                             std::string_view name)
    : sim_(sim),
      cfg_((cfg.validate(), cfg)),
      rng_(sim.stream(std::string(name) + "/service")),
      bg_rng_(sim.stream(std::string(name) + "/background")),
      ring_(cfg_.nodes, cfg_.num_tokens, cfg_.placement == Placement::TokenRing ? cfg_.rf : 1,
            sim.stream(std::string(name) + "/tokens")),
      hot_(cfg_.total_shards()),
      partitions_(partitions),
      written_(partitions, false),
      routes_(static_cast<std::size_t>(partitions) * cfg_.rf, kNoRoute),
      window_busy_(cfg_.total_shards(), 0.0),
      compaction_phase_(cfg_.total_shards(), 0),
      kind_coord_(sim.intern_kind(std::string(name) + ".coordinator")),
      kind_reply_(sim.intern_kind(std::string(name) + ".reply")),
      actor_(sim.new_actor_id()),
      name_(name),
      needed_(replies_needed(cfg_.cl, cfg_.rf)),
      killed_(cfg_.nodes, 0) {
  for (TimelinePartition& p : partitions_) {
    p.fill(cfg_.timeline.target_rows);  // steady state: timelines are full
  }
  if (!cfg_.timeline.aligned_compaction) {
    sim::Rng& phase_rng = sim.stream(std::string(name) + "/compaction");
    for (sim::Duration& phase : compaction_phase_) {
      phase = static_cast<sim::Duration>(phase_rng.uniform01() *
                                         static_cast<double>(cfg_.timeline.compaction_interval));
    }
  }
  // Each fleet write lands on rf replica shards; the coordinator's CQL work is spread too.
  const double per_shard = cfg_.background_writes_per_s * cfg_.rf / cfg_.total_shards();
  bg_rate_per_ns_ = per_shard * cfg_.scale / 1e9;
  bg_gap_mean_ns_ = 1.0 / bg_rate_per_ns_;
  bg_rows_per_write_ = 1.0 / cfg_.scale;
  const double amortised_trim =
      static_cast<double>(cfg_.timeline.row_scan_cost) *
      (cfg_.timeline.target_rows + cfg_.timeline.trim_slack_rows) /
      std::max<std::uint32_t>(cfg_.timeline.trim_slack_rows, 1);
  bg_service_mean_ = static_cast<sim::Duration>(
      (static_cast<double>(cfg_.timeline.write_service_mean) + amortised_trim +
       static_cast<double>(cfg_.coordinator_service_mean) / cfg_.rf) /
      cfg_.scale);
  shards_.reserve(cfg_.total_shards());
  for (ShardId id = 0; id < cfg_.total_shards(); ++id) {
    auto* sh = new Shard(&cfg_.reactor);
    sh->cluster = this;
    sh->id = id;
    sh->actor_id = actor_;
    sh->kind = sim.intern_kind(std::string(name) + ".shard");
    sh->next_background =
        bg_rate_per_ns_ > 0 ? static_cast<sim::Time>(bg_rng_.exponential(1.0 / bg_rate_per_ns_))
                            : sim::kTimeMax;
    // The last compaction before the run began its job at the shard's previous trigger.
    sh->purged = TimelinePartition::last_compaction(cfg_.timeline, 0, compaction_phase_[id]);
    sh->next_compaction = sh->purged + cfg_.timeline.compaction_interval;
    shards_.push_back(sh);
  }
  write_wheel_ = new TimeoutWheel();
  read_wheel_ = new TimeoutWheel();
  for (TimeoutWheel* w : {write_wheel_, read_wheel_}) {
    w->cluster = this;
    w->actor_id = actor_;
    w->kind = sim.intern_kind(std::string(name) + ".timeout");
  }
}

ScyllaCluster::~ScyllaCluster() {
  bool queued = free_ops_.size() != all_ops_.size() ||
                write_wheel_->armed_at != sim::kTimeMax || read_wheel_->armed_at != sim::kTimeMax;
  for (const Shard* sh : shards_) queued = queued || sh->queued_events != 0;
  if (queued && !sim_.shutting_down()) {
    sim_.shutdown();  // shards, timers and ops still in the queue are freed below
  }
  for (Op* op : all_ops_) {
    delete op;
  }
  for (Shard* sh : shards_) {
    delete sh;
  }
  delete write_wheel_;
  delete read_wheel_;
}

void ScyllaCluster::compute_route(PartitionKey key) {
  ShardId* out = &routes_[static_cast<std::size_t>(key) * cfg_.rf];
  if (cfg_.placement == Placement::ShuffleShard) {
    auto set = shuffle_shard_set(key, cfg_.rf, cfg_.total_shards());
    std::copy(set.begin(), set.end(), out);
    note_route(key, out);
    return;
  }
  const Token t = bigint_token(key);
  const std::uint32_t core = shard_of(t, cfg_.shards_per_node, cfg_.ignore_msb);
  const NodeId* nodes = ring_.replicas(t);
  for (std::uint32_t i = 0; i < cfg_.rf; ++i) {
    out[i] = nodes[i] * cfg_.shards_per_node + core;  // same core index on every replica
  }
  note_route(key, out);
}

const ShardId* ScyllaCluster::replicas(PartitionKey key) {
  if (key >= partitions_.size()) {
    throw std::out_of_range("scylla: partition " + std::to_string(key) + " >= partitions " +
                            std::to_string(partitions_.size()));
  }
  ShardId* r = &routes_[static_cast<std::size_t>(key) * cfg_.rf];
  if (r[0] == kNoRoute) {
    compute_route(key);
  }
  return r;
}

void ScyllaCluster::add_background_partition(PartitionKey key, double writes_per_s) {
  if (!(writes_per_s > 0)) {
    throw std::invalid_argument("scylla: background partition rate must be > 0");
  }
  const ShardId* r = replicas(key);
  const double rate_per_ns = writes_per_s / 1e9;
  for (std::uint32_t i = 0; i < cfg_.rf; ++i) {
    HotWriter w{key, rate_per_ns,
                sim_.now() + static_cast<sim::Time>(bg_rng_.exponential(1.0 / rate_per_ns)),
                TimelinePartition{}};
    // The partition has been this busy for a long time: its copy on this shard carries the
    // shadowed rows written since the shard's last compaction.
    w.copy.warm(cfg_.timeline, sim_.now(), compaction_phase_[r[i]], writes_per_s);
    hot_[r[i]].push_back(w);
  }
}

void ScyllaCluster::add_fed_partition(PartitionKey key, double warm_writes_per_s) {
  if (!(warm_writes_per_s >= 0)) {
    throw std::invalid_argument("scylla: fed partition warm rate must be >= 0");
  }
  const ShardId* r = replicas(key);
  for (std::uint32_t i = 0; i < cfg_.rf; ++i) {
    for (const HotWriter& w : hot_[r[i]]) {
      if (w.key == key) {
        throw std::invalid_argument("scylla: partition " + std::to_string(key) +
                                    " is already hyper-written");
      }
    }
    HotWriter w{key, 0.0, sim::kTimeMax, TimelinePartition{}};
    w.copy.warm(cfg_.timeline, sim_.now(), compaction_phase_[r[i]], warm_writes_per_s);
    hot_[r[i]].push_back(w);
  }
}

void ScyllaCluster::background_write(PartitionKey key, std::uint32_t rows) {
  if (rows == 0) {
    throw std::invalid_argument("scylla: background_write of 0 rows");
  }
  const ShardId* r = replicas(key);
  const sim::Time now = sim_.now();
  for (std::uint32_t i = 0; i < cfg_.rf; ++i) {
    HotWriter* mine = nullptr;
    for (HotWriter& w : hot_[r[i]]) {
      if (w.key == key && w.rate_per_ns == 0.0) mine = &w;
    }
    if (mine == nullptr) {
      throw std::logic_error("scylla: background_write to partition " + std::to_string(key) +
                             " never added with add_fed_partition");
    }
    Shard& sh = *shards_[r[i]];
    advance(r[i], now);  // the shard's earlier arrivals first
    hot_write(sh, *mine, now, rows);
    wake_at_next_decision(sh);
  }
  background_writes_ += rows;
}

void ScyllaCluster::hot_write(Shard& sh, HotWriter& w, sim::Time t, std::uint32_t rows) {
  const sim::Duration trim = w.copy.write_rows_after(cfg_.timeline, sh.purged, rows);
  const sim::Duration base =
      rows > 1 ? cfg_.timeline.write_service_mean * static_cast<sim::Duration>(rows)
      : cfg_.exponential_service
          ? bg_rng_.exponential_duration(cfg_.timeline.write_service_mean)
          : cfg_.timeline.write_service_mean;
  sh.rows_since_compaction += rows;
  ++sh.statement_ops;
  sh.admitted_ns += static_cast<double>(base + trim);
  sh.cpu.submit(t, Group::Statement, base + trim, 0);
}

sim::Duration ScyllaCluster::draw(sim::Duration mean) {
  if (!cfg_.exponential_service || mean == 0) {
    return mean;
  }
  return rng_.exponential_duration(mean);
}

void ScyllaCluster::run_to(Shard& sh, sim::Time t) {
  sh.cpu.run_until(t, [&](std::uint64_t cookie, sim::Time at) { on_task_done(sh, cookie, at); });
}

namespace {
constexpr std::uint64_t kCompactionCookie = 1;
constexpr std::uint64_t kSlots = 17;  // slot 0: the coordinator step; 1..16: replica i
std::uint64_t op_cookie(std::uint32_t index, std::uint32_t slot) {
  return 2 + static_cast<std::uint64_t>(index) * kSlots + slot;
}
}  // namespace

// The shard's lazily generated arrivals up to `now`, each at its own instant in order with the
// shard's other work: the fleet background, hyper-written partitions, compaction triggers.
void ScyllaCluster::advance(ShardId s, sim::Time now) {
  Shard& sh = *shards_[s];
  if (sh.advancing) {
    // Called back from a completion inside this shard's own catch-up (always at now): the
    // outer call finishes the lazy arrivals and the wake-up.
    run_to(sh, now);
    return;
  }
  sh.advancing = true;
  std::vector<HotWriter>& hot = hot_[s];
  for (;;) {
    HotWriter* first = nullptr;
    for (HotWriter& w : hot) {
      if (w.next <= now && (first == nullptr || w.next < first->next)) first = &w;
    }
    sim::Time t = first != nullptr ? first->next : sim::kTimeMax;
    int what = 0;  // 0 hot writer, 1 background, 2 compaction trigger
    if (sh.next_background <= now && sh.next_background < t) {
      t = sh.next_background;
      what = 1;
    }
    if (sh.next_compaction <= now && sh.next_compaction < t) {
      t = sh.next_compaction;
      what = 2;
    }
    if (t == sim::kTimeMax) break;
    run_to(sh, t);
    if (what == 0) {
      hot_write(sh, *first, t);
      first->next += static_cast<sim::Time>(bg_rng_.exponential(1.0 / first->rate_per_ns)) + 1;
    } else if (what == 1) {
      const sim::Duration work = bg_rng_.exponential_duration(bg_service_mean_);
      sh.rows_since_compaction += bg_rows_per_write_;
      sh.admitted_ns += static_cast<double>(work);
      sh.cpu.submit(t, Group::Statement, work, 0);
      sh.next_background += static_cast<sim::Time>(bg_rng_.exponential(bg_gap_mean_ns_)) + 1;
    } else {
      sh.next_compaction += cfg_.timeline.compaction_interval;
      if (!sh.compacting) {
        // A compaction of what the shard wrote since the last one; the rows it shadows are gone
        // when it finishes. A trigger that finds one still running is skipped.
        const auto work = static_cast<sim::Duration>(
            sh.rows_since_compaction * static_cast<double>(cfg_.timeline.compaction_row_cost));
        sh.compacting = true;
        sh.compaction_snapshot = t;
        sh.rows_since_compaction = 0;
        sh.admitted_ns += static_cast<double>(work);
        sh.cpu.submit(t, Group::Compaction, work, kCompactionCookie);
      }
    }
  }
  run_to(sh, now);
  sh.advancing = false;
  wake_at_next_decision(sh);
}

void ScyllaCluster::wake_at_next_decision(Shard& sh) {
  if (sh.cpu.pending_cookies() == 0) return;
  const sim::Time next = sh.cpu.next_decision();
  if (next < sh.event_at) {
    sh.event_at = next;
    ++sh.queued_events;
    sim_.schedule_at(next, sh);
  }
}

void ScyllaCluster::on_shard_event(Shard& sh) { advance(sh.id, sim_.now()); }

void ScyllaCluster::on_task_done(Shard& sh, std::uint64_t cookie, sim::Time at) {
  if (cookie == kCompactionCookie) {
    sh.compacting = false;
    sh.purged = sh.compaction_snapshot;
    ++compactions_done_;
    return;
  }
  if (at != sim_.now()) {
    throw std::logic_error("scylla: a waited-for task ended between the shard's wake-ups");
  }
  const std::uint64_t c = cookie - 2;
  Op* op = all_ops_[c / kSlots];
  const auto slot = static_cast<std::uint32_t>(c % kSlots);
  if (sim_.tracer() != nullptr) {
    const bool coord = slot == 0;
    trace_shard_op(sh.id,
                   coord ? (op->is_read ? "coordinate read" : "coordinate write")
                         : (op->is_read ? "read" : "write"),
                   at, coord ? 0 : op->work[slot - 1], op->key);
  }
  --op->outstanding;
  if (slot == 0) {
    replicate(op);
    maybe_free(op);
    return;
  }
  learn_reply(op, slot - 1, at);
  maybe_free(op);
}

void ScyllaCluster::submit(Shard& sh, Group g, sim::Duration work, std::uint64_t cookie) {
  sh.admitted_ns += static_cast<double>(work);
  sh.statement_ops += g == Group::Statement ? 1 : 0;
  sh.cpu.submit(sim_.now(), g, work, cookie);
  if (cookie != 0) wake_at_next_decision(sh);
}

ScyllaCluster::Op* ScyllaCluster::alloc_op() {
  if (free_ops_.empty()) {
    Op* op = new Op();
    op->cluster = this;
    op->actor_id = actor_;
    op->index = static_cast<std::uint32_t>(all_ops_.size());
    all_ops_.push_back(op);
    return op;
  }
  Op* op = free_ops_.back();
  free_ops_.pop_back();
  return op;
}

void ScyllaCluster::write(PartitionKey key, WriteSink& sink, std::uint64_t tag,
                          std::uint32_t via) {
  start_new_op(key, false, 0, sink, tag, via);
}

void ScyllaCluster::read(PartitionKey key, std::uint32_t rows, WriteSink& sink,
                         std::uint64_t tag, std::uint32_t via) {
  start_new_op(key, true, rows, sink, tag, via);
}

void ScyllaCluster::start_new_op(PartitionKey key, bool is_read, std::uint32_t rows,
                                 WriteSink& sink, std::uint64_t tag, std::uint32_t via) {
  if (via != kDriverChoice && via >= cfg_.rf) {
    throw std::out_of_range("scylla: coordinator replica " + std::to_string(via) + " >= rf");
  }
  Op* op = alloc_op();
  op->via = via;
  op->sink = &sink;
  op->tag = tag;
  op->key = key;
  op->is_read = is_read;
  op->rows = rows;
  op->start = sim_.now();
  op->waited = false;
  start(op);
}

bool ScyllaCluster::live_or_park(Op* op, const ShardId* r, ShardId* live,
                                std::uint32_t& n_live) {
  const std::uint32_t n = std::min<std::uint32_t>(cfg_.rf, 16);
  n_live = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!node_down(r[i])) live[n_live++] = r[i];
  }
  if (n_live >= std::min(needed_, n) && n_live > 0) return true;
  if (!op->waited) ++unavailable_;
  op->waited = true;
  ++op->epoch;  // the coordinator answered Unavailable: this attempt's timeout is void
  parked_.push_back(op);
  return false;
}

void ScyllaCluster::set_slow_node(double factor) {
  if (!(factor >= 1.0)) throw std::invalid_argument("scylla: slow node factor must be >= 1");
  slow_factor_ = factor;
}

void ScyllaCluster::set_down_nodes(std::uint32_t n) {
  if (n > cfg_.nodes) {
    throw std::invalid_argument("scylla: down_nodes " + std::to_string(n) + " > nodes " +
                                std::to_string(cfg_.nodes));
  }
#ifdef SKYSIM_PLANTED_BUGS
  // Planted for the fuzzer's self-test (docs/fuzzing.md, "Planted bugs"): a node coming back
  // restarts its shards' work accounting but keeps what they ran and what they queued, so
  // scylla.consistent must report a reactor that no longer conserves work.
  for (std::size_t s = 0; s < shards_.size(); ++s) {
    const std::uint32_t node = node_of(static_cast<ShardId>(s));
    if (node >= n && node < down_nodes_) shards_[s]->cpu.planted_reset_books();
  }
#endif
  down_nodes_ = n;
  retry_parked();
}

void ScyllaCluster::set_node_killed(std::uint32_t node, bool killed) {
  if (node >= cfg_.nodes) {
    throw std::invalid_argument("scylla: node " + std::to_string(node) + " of " +
                                std::to_string(cfg_.nodes));
  }
  if ((killed_[node] != 0) == killed) return;
  killed_[node] = killed ? 1 : 0;
  if (killed) {
    ++killed_count_;
    return;
  }
  --killed_count_;
  retry_parked();
}

std::uint32_t ScyllaCluster::down_nodes() const {
  std::uint32_t n = down_nodes_;
  for (std::uint32_t j = down_nodes_; j < cfg_.nodes; ++j) n += killed_[j] != 0 ? 1 : 0;
  return n;
}

void ScyllaCluster::retry_parked() {
  std::vector<Op*> retry;
  retry.swap(parked_);
  for (Op* op : retry) {
    if (op->stage == Op::Stage::Replicate) {
      arm(op->is_read ? *read_wheel_ : *write_wheel_, op,
          sim_.now() + (op->is_read ? cfg_.read_timeout : cfg_.write_timeout) + cfg_.client_rtt);
      replicate(op);  // parked after its coordinator step
    } else {
      start(op);
    }
  }
}

void ScyllaCluster::arm(TimeoutWheel& w, Op* op, sim::Time fire_at) {
  while (!w.q.empty() && TimeoutWheel::stale(w.q.front())) w.q.pop_front();
  w.q.push_back({op, op->epoch, fire_at});
  if (w.armed_at == sim::kTimeMax) {
    w.armed_at = w.q.front().fire_at;
    sim_.schedule_at(w.armed_at, w);
  }
}

void ScyllaCluster::start(Op* op) {
  const sim::Time now = sim_.now();
  const ShardId* r = replicas(op->key);
  std::copy(r, r + std::min<std::uint32_t>(cfg_.rf, 16), op->route);
  r = op->route;
  op->stage = Op::Stage::Coordinate;
  op->replied = false;
  op->finish_at = sim::kTimeMax;
  op->sent = op->known = op->outstanding = 0;
  if (op->via != kDriverChoice && !node_down(r[op->via])) {
    op->coordinator = r[op->via];  // the client's choice: no draw
  } else if (!any_down()) {
    op->coordinator = r[cfg_.rf == 1 ? 0 : rng_.uniform_int(0, cfg_.rf - 1)];
  } else {
    ShardId live[16];
    std::uint32_t n_live = 0;
    if (!live_or_park(op, r, live, n_live)) return;
    op->coordinator = live[n_live == 1 ? 0 : rng_.uniform_int(0, n_live - 1)];
  }
  // The coordinator's timeout runs from when it takes the request; the client hears of it
  // client_rtt later (the whole client round trip is on the answer path).
  arm(op->is_read ? *read_wheel_ : *write_wheel_, op,
      now + (op->is_read ? cfg_.read_timeout : cfg_.write_timeout) + cfg_.client_rtt);
  advance(op->coordinator, now);
  Shard& sh = *shards_[op->coordinator];
  const sim::Duration service = on_shard(op->coordinator, draw(cfg_.coordinator_service_mean));
  const sim::Time done = sh.certain_end(now, service);
  op->stage = Op::Stage::Replicate;
  if (done == sim::kTimeMax) {
    ++op->outstanding;  // the op outlives a timeout until the shard has reported
    submit(sh, Group::Statement, service, op_cookie(op->index, 0));
    return;  // the shard reports when the step ends
  }
  submit(sh, Group::Statement, service, 0);
  if (sim_.tracer() != nullptr) {
    trace_shard_op(op->coordinator, op->is_read ? "coordinate read" : "coordinate write", done,
                   service, op->key);
  }
  op->kind = kind_coord_;
  ++op->pending_events;
  sim_.schedule_at(done, *op);
}

void ScyllaCluster::replicate(Op* op) {
  if (op->replied) return;  // timed out during its coordinator step: nothing is sent
  const sim::Time now = sim_.now();
  const ShardId* r = op->route;
  std::uint32_t n = std::min<std::uint32_t>(cfg_.rf, 16);
  ShardId live[16];
  if (any_down()) {
    // A replica went down since the coordinator step: the op waits like an Unavailable one.
    const std::uint32_t all = n;
    if (!live_or_park(op, r, live, n)) return;
    if (n < all) ++degraded_;
    r = live;
  }
  // Writes go to every live replica and wait for CL of them. Reads go to the CL replicas
  // only, the coordinator's own copy first (no read repair, no speculative retry).
  ShardId targets[16];
  std::uint32_t count = 0;
  if (op->is_read) {
    const std::uint32_t want = std::min(needed_, n);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (r[i] == op->coordinator) targets[count++] = r[i];
    }
    for (std::uint32_t i = 0; i < n && count < want; ++i) {
      if (r[i] != op->coordinator) targets[count++] = r[i];
    }
    count = std::min(count, want);
    op->wait_for = static_cast<std::uint8_t>(count);
    op->speculate_at = sim::kTimeMax;
    if (cfg_.speculative_retry > 0 && count < n) {
      for (std::uint32_t i = 0; i < n; ++i) {
        if (std::find(targets, targets + count, r[i]) == targets + count) {
          op->spare = r[i];
          break;
        }
      }
      op->speculate_at = now + cfg_.speculative_retry;
      ++op->pending_events;
      sim_.schedule_at(op->speculate_at, *op);
    }
  } else {
    std::copy(r, r + n, targets);
    count = n;
    op->wait_for = static_cast<std::uint8_t>(std::min(needed_, n));
  }
  ++replicated_ops_;
  replica_ops_ += count;
  for (std::uint32_t i = 0; i < count; ++i) advance(targets[i], now);
  // One shared state stands for every replica's copy of an ordinary partition (written once
  // per post, its shadowed rows stay few); it compacts with its first replica's shard.
  const sim::Time purged = shards_[r[0]]->purged;
  sim::Duration extra;
  if (op->is_read) {
    extra = read_cost(op->key, op->rows, purged);
  } else {
    written_[op->key] = true;
    extra = partitions_[op->key].write_after(cfg_.timeline, purged);
  }
  const sim::Duration mean =
      op->is_read ? cfg_.read_service_mean : cfg_.timeline.write_service_mean;
  op->stage = Op::Stage::Reply;
  op->kind = kind_reply_;
  op->sent = static_cast<std::uint8_t>(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    op->reply_at[i] = sim::kTimeMax;
    op->sent_to[i] = targets[i];
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    if (!op->is_read) shards_[targets[i]]->rows_since_compaction += 1;
    send_replica(op, i, draw(mean) + extra);
  }
}

const char* ScyllaCluster::shard_conservation_error(std::size_t s) const {
  return shards_[s]->cpu.conservation_error();
}

void ScyllaCluster::send_replica(Op* op, std::uint32_t slot, sim::Duration service) {
  const ShardId target = op->sent_to[slot];
  Shard& sh = *shards_[target];
  service = on_shard(target, service);
  op->work[slot] = service;
  const sim::Time done = sh.certain_end(sim_.now(), service);
  if (done == sim::kTimeMax) {
    ++op->outstanding;
    submit(sh, Group::Statement, service, op_cookie(op->index, slot + 1));
    return;
  }
  submit(sh, Group::Statement, service, 0);
  if (sim_.tracer() != nullptr) {
    trace_shard_op(target, op->is_read ? "read" : "write", done, service, op->key);
  }
  learn_reply(op, slot, done);
}

void ScyllaCluster::speculate(Op* op) {
  op->speculate_at = sim::kTimeMax;
  const sim::Time now = sim_.now();
  std::uint32_t arrived = 0;
  for (std::uint32_t i = 0; i < op->sent; ++i) arrived += op->reply_at[i] <= now ? 1 : 0;
  if (arrived >= op->wait_for || any_down()) return;  // (no retry to a down replica)
  ++speculative_reads_;
  const std::uint32_t slot = op->sent++;
  op->sent_to[slot] = op->spare;
  op->reply_at[slot] = sim::kTimeMax;
  advance(op->spare, now);
  send_replica(op, slot,
               draw(cfg_.read_service_mean) +
                   read_cost(op->key, op->rows, shards_[op->route[0]]->purged));
}

sim::Duration ScyllaCluster::read_cost(PartitionKey key, std::uint32_t rows, sim::Time purged) {
  // A partition no write has reached holds no shadowed rows: a read scans its rows only, and
  // its state is not touched (a read-only key space of 100k partitions, the April data plane's,
  // missed the cache on it at every read).
  if (!written_[key]) return cfg_.timeline.row_scan_cost * static_cast<sim::Duration>(rows);
  return partitions_[key].read_cost_after(cfg_.timeline, rows, purged);
}

void ScyllaCluster::learn_reply(Op* op, std::uint32_t slot, sim::Time done) {
  op->reply_at[slot] = op->sent_to[slot] == op->coordinator ? done : done + cfg_.replica_rtt;
  ++op->known;
  decide(op);
}

// Once CL replies are known, the answer leaves at the CL-th earliest of them. Every reply is
// learned no later than it arrives, so a later-learned one can only move the answer earlier;
// the op then keeps the earliest answer and ignores the events it superseded.
void ScyllaCluster::decide(Op* op) {
  if (op->replied || op->known < op->wait_for) return;
  sim::Time t[16];
  std::uint32_t m = 0;
  for (std::uint32_t i = 0; i < op->sent; ++i) {
    if (op->reply_at[i] != sim::kTimeMax) t[m++] = op->reply_at[i];
  }
  std::nth_element(t, t + (op->wait_for - 1), t + m);
  const sim::Time answer = t[op->wait_for - 1] + cfg_.client_rtt;
  const sim::Time deadline =
      op->start + (op->is_read ? cfg_.read_timeout : cfg_.write_timeout) + cfg_.client_rtt;
  if (answer >= op->finish_at || answer > deadline) return;  // the timeout answers instead
  op->finish_at = answer;
  ++op->pending_events;
  sim_.schedule_at(answer, *op);
}

void ScyllaCluster::finish(Op* op) {
  const sim::Duration latency = sim_.now() - op->start;
  op->replied = true;
  if (op->is_read) {
    read_latency_.record(latency);
  } else {
    write_latency_.record(latency);
    ++writes_done_;
  }
  op->sink->on_done(sim_, op->tag, latency);
}

void ScyllaCluster::time_out(Op* op) {
  op->replied = true;
  if (op->is_read) {
    ++read_timeouts_;
  } else {
    ++write_timeouts_;
  }
  op->sink->on_timeout(sim_, op->tag, sim_.now() - op->start);
  maybe_free(op);
}

void ScyllaCluster::maybe_free(Op* op) {
  if (!op->replied || op->pending_events != 0 || op->outstanding != 0) return;
  ++op->epoch;
  op->replied = false;  // a fresh op for alloc_op; epoch marks old timeout entries stale
  op->pending_events = 0;
  free_ops_.push_back(op);
}

std::uint64_t ScyllaCluster::statement_ops(ShardId s) const {
  return shards_.at(s)->statement_ops;
}

std::uint64_t ScyllaCluster::max_statement_ops() const {
  std::uint64_t most = 0;
  for (const Shard* sh : shards_) most = std::max(most, sh->statement_ops);
  return most;
}

sim::Duration ScyllaCluster::group_ran(ShardId s, Group g, sim::Time now) {
  advance(s, now);
  return shards_.at(s)->cpu.ran(g);
}

void ScyllaCluster::reset_window(sim::Time now) {
  for (ShardId s = 0; s < shards_.size(); ++s) {
    advance(s, now);
    window_busy_[s] = shards_[s]->admitted_ns;
  }
  window_start_ = now;
}

double ScyllaCluster::utilisation(ShardId s, sim::Time now) {
  advance(s, now);
  if (now <= window_start_) {
    return 0.0;
  }
  return (shards_[s]->admitted_ns - window_busy_[s]) / static_cast<double>(now - window_start_);
}

double ScyllaCluster::busy_ns(ShardId s, sim::Time now) {
  advance(s, now);
  return shards_.at(s)->admitted_ns;
}

std::vector<double> ScyllaCluster::utilisations(sim::Time now) {
  std::vector<double> u(shards_.size());
  for (ShardId s = 0; s < shards_.size(); ++s) {
    u[s] = utilisation(s, now);
  }
  return u;
}

std::uint32_t ScyllaCluster::count_hot_shards(sim::Time now) {
  std::uint32_t hot = 0;
  for (double u : utilisations(now)) {
    hot += u >= cfg_.hot_utilisation ? 1 : 0;
  }
  return hot;
}

void ScyllaCluster::trace_shard_op(ShardId s, const char* what, sim::Time done,
                                   sim::Duration service, PartitionKey key) {
  sim::Tracer* t = sim_.tracer();
  if (!t->wants("scylla")) return;
  const std::uint32_t node = node_of(s);
  const std::uint32_t core = s % cfg_.shards_per_node;
  const sim::TraceTrack track = t->thread(
      t->process(name_), "node " + std::to_string(node) + " shard " + std::to_string(core));
  // Slices are emitted in completion order; a preempted task's is clipped to start after the
  // previous one on its shard, so a shard's track never overlaps (it shows the task's last
  // stretch of CPU, not the slices it was cut into).
  if (trace_end_.empty()) trace_end_.assign(shards_.size(), 0);
  const sim::Time begin = std::max(done - service, trace_end_[s]);
  if (begin >= done) return;
  trace_end_[s] = done;
  t->complete(track, what, "scylla", begin, done - begin,
              {{"partition", static_cast<std::int64_t>(key)},
               {"queued_ns", begin - sim_.now()}});
}

}  // namespace scylla
