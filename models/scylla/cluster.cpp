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

struct ScyllaCluster::Op final : sim::Handler {
  enum class Stage : std::uint8_t { Coordinate, Replicate, Reply };
  ScyllaCluster* cluster = nullptr;
  WriteSink* sink = nullptr;
  std::uint64_t tag = 0;
  sim::Time start = 0;
  PartitionKey key = 0;
  ShardId coordinator = 0;
  std::uint32_t rows = 0;
  bool is_read = false;
  bool waited = false;  // found too few live replicas at least once
  Stage stage = Stage::Coordinate;

  void on_event(sim::Simulation&) override {
    if (stage == Stage::Replicate) {
      cluster->replicate(this);
    } else {
      cluster->finish(this);
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
  if (write_service_mean <= 0 || row_scan_cost < 0 || compaction_interval <= 0) {
    throw std::invalid_argument(
        "scylla: timeline write_service_mean and compaction_interval must be > 0, "
        "row_scan_cost >= 0");
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
  timeline.validate();
}

ScyllaCluster::ScyllaCluster(sim::Simulation& sim, ScyllaConfig cfg, std::uint32_t partitions,
                             std::string_view name)
    : sim_(sim),
      cfg_((cfg.validate(), cfg)),
      rng_(sim.stream(std::string(name) + "/service")),
      bg_rng_(sim.stream(std::string(name) + "/background")),
      ring_(cfg_.nodes, cfg_.num_tokens, cfg_.placement == Placement::TokenRing ? cfg_.rf : 1,
            sim.stream(std::string(name) + "/tokens")),
      shards_(cfg_.total_shards()),
      hot_(cfg_.total_shards()),
      partitions_(partitions),
      routes_(static_cast<std::size_t>(partitions) * cfg_.rf, kNoRoute),
      window_busy_(cfg_.total_shards(), 0.0),
      compaction_phase_(cfg_.total_shards(), 0),
      kind_coord_(sim.intern_kind(std::string(name) + ".coordinator")),
      kind_reply_(sim.intern_kind(std::string(name) + ".reply")),
      actor_(sim.new_actor_id()),
      name_(name),
      needed_(replies_needed(cfg_.cl, cfg_.rf)) {
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
  const double amortised_trim =
      static_cast<double>(cfg_.timeline.row_scan_cost) *
      (cfg_.timeline.target_rows + cfg_.timeline.trim_slack_rows) /
      std::max<std::uint32_t>(cfg_.timeline.trim_slack_rows, 1);
  bg_service_mean_ = static_cast<sim::Duration>(
      (static_cast<double>(cfg_.timeline.write_service_mean) + amortised_trim +
       static_cast<double>(cfg_.coordinator_service_mean) / cfg_.rf) /
      cfg_.scale);
  for (ShardQueue& q : shards_) {
    q.next_background = bg_rate_per_ns_ > 0
                            ? static_cast<sim::Time>(bg_rng_.exponential(1.0 / bg_rate_per_ns_))
                            : sim::kTimeMax;
  }
}

ScyllaCluster::~ScyllaCluster() {
  if (free_ops_.size() != all_ops_.size() && !sim_.shutting_down()) {
    sim_.shutdown();  // writes still in flight point at ops freed below
  }
  for (Op* op : all_ops_) {
    delete op;
  }
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

sim::Duration ScyllaCluster::draw(sim::Duration mean) {
  if (!cfg_.exponential_service || mean == 0) {
    return mean;
  }
  return rng_.exponential_duration(mean);
}

void ScyllaCluster::advance(ShardId s, sim::Time now) {
  ShardQueue& q = shards_[s];
  advance_hot(s, now);
  while (q.next_background <= now) {
    q.admit(q.next_background, bg_rng_.exponential_duration(bg_service_mean_));
    q.next_background += static_cast<sim::Time>(bg_rng_.exponential(1.0 / bg_rate_per_ns_)) + 1;
  }
}

void ScyllaCluster::advance_hot(ShardId s, sim::Time now) {
  ShardQueue& q = shards_[s];
  // Hyper-followed partitions on this shard, in arrival order with the shard's other work
  // (merged by always taking the earliest pending arrival).
  std::vector<HotWriter>& hot = hot_[s];
  if (hot.empty()) {
    return;
  }
  for (;;) {
    HotWriter* first = nullptr;
    for (HotWriter& w : hot) {
      if (w.next <= now && (first == nullptr || w.next < first->next)) {
        first = &w;
      }
    }
    if (first == nullptr) {
      break;
    }
    while (q.next_background <= first->next) {
      q.admit(q.next_background, bg_rng_.exponential_duration(bg_service_mean_));
      q.next_background +=
          static_cast<sim::Time>(bg_rng_.exponential(1.0 / bg_rate_per_ns_)) + 1;
    }
    const sim::Duration trim =
        first->copy.write(cfg_.timeline, first->next, compaction_phase_[s]);
    const sim::Duration base = cfg_.exponential_service
                                   ? bg_rng_.exponential_duration(cfg_.timeline.write_service_mean)
                                   : cfg_.timeline.write_service_mean;
    q.admit(first->next, base + trim);
    first->next += static_cast<sim::Time>(bg_rng_.exponential(1.0 / first->rate_per_ns)) + 1;
  }
}

ScyllaCluster::Op* ScyllaCluster::alloc_op() {
  if (free_ops_.empty()) {
    Op* op = new Op();
    op->cluster = this;
    op->actor_id = actor_;
    all_ops_.push_back(op);
    return op;
  }
  Op* op = free_ops_.back();
  free_ops_.pop_back();
  return op;
}

void ScyllaCluster::write(PartitionKey key, WriteSink& sink, std::uint64_t tag) {
  Op* op = alloc_op();
  op->sink = &sink;
  op->tag = tag;
  op->key = key;
  op->is_read = false;
  op->rows = 0;
  op->start = sim_.now();
  op->waited = false;
  start(op);
}

void ScyllaCluster::read(PartitionKey key, std::uint32_t rows, WriteSink& sink,
                         std::uint64_t tag) {
  Op* op = alloc_op();
  op->sink = &sink;
  op->tag = tag;
  op->key = key;
  op->is_read = true;
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
  parked_.push_back(op);
  return false;
}

void ScyllaCluster::set_down_nodes(std::uint32_t n) {
  if (n > cfg_.nodes) {
    throw std::invalid_argument("scylla: down_nodes " + std::to_string(n) + " > nodes " +
                                std::to_string(cfg_.nodes));
  }
  down_nodes_ = n;
  std::vector<Op*> retry;
  retry.swap(parked_);
  for (Op* op : retry) {
    if (op->stage == Op::Stage::Replicate) {
      replicate(op);  // parked after its coordinator step
    } else {
      start(op);
    }
  }
}

void ScyllaCluster::start(Op* op) {
  const sim::Time now = sim_.now();
  const ShardId* r = replicas(op->key);
  op->stage = Op::Stage::Coordinate;
  if (down_nodes_ == 0) {
    op->coordinator = r[cfg_.rf == 1 ? 0 : rng_.uniform_int(0, cfg_.rf - 1)];
  } else {
    ShardId live[16];
    std::uint32_t n_live = 0;
    if (!live_or_park(op, r, live, n_live)) return;
    op->coordinator = live[n_live == 1 ? 0 : rng_.uniform_int(0, n_live - 1)];
  }
  advance(op->coordinator, now);
  const sim::Duration service = draw(cfg_.coordinator_service_mean);
  const sim::Time done = shards_[op->coordinator].admit(now, service);
  if (sim_.tracer() != nullptr) {
    trace_shard_op(op->coordinator, op->is_read ? "coordinate read" : "coordinate write", done,
                   service, op->key);
  }
  op->stage = Op::Stage::Replicate;
  op->kind = kind_coord_;
  sim_.schedule_at(done, *op);
}

void ScyllaCluster::replicate(Op* op) {
  const sim::Time now = sim_.now();
  const ShardId* r = replicas(op->key);
  TimelinePartition& part = partitions_[op->key];
  // One shared state stands for every replica's copy of an ordinary partition (written once
  // per post, its shadowed rows stay few); it compacts with its first replica's shard.
  const sim::Duration phase = compaction_phase_[r[0]];
  const sim::Duration extra = op->is_read ? part.read_cost(cfg_.timeline, now, op->rows, phase)
                                          : part.write(cfg_.timeline, now, phase);
  const sim::Duration mean =
      op->is_read ? cfg_.read_service_mean : cfg_.timeline.write_service_mean;
  sim::Time replies[16];
  std::uint32_t n = std::min<std::uint32_t>(cfg_.rf, 16);
  std::uint32_t wait_for = op->is_read ? std::min(needed_, n) : needed_;
  ShardId live[16];
  if (down_nodes_ > 0) {
    // A replica went down since the coordinator step: the op waits like an Unavailable one.
    const std::uint32_t all = n;
    if (!live_or_park(op, r, live, n)) return;
    if (n < all) ++degraded_;
    r = live;
    wait_for = std::min(wait_for, n);
  }
  ++replicated_ops_;
  replica_ops_ += n;
  for (std::uint32_t i = 0; i < n; ++i) {
    advance(r[i], now);
    const sim::Duration service = draw(mean) + extra;
    sim::Time done = shards_[r[i]].admit(now, service);
    if (sim_.tracer() != nullptr) {
      trace_shard_op(r[i], op->is_read ? "read" : "write", done, service, op->key);
    }
    replies[i] = r[i] == op->coordinator ? done : done + cfg_.replica_rtt;
  }
  // Reads go to CL replicas only (no read repair modelled); writes go to all and wait for CL.
  sim::Time reply;
  if (op->is_read) {
    std::sort(replies, replies + n);
    reply = replies[wait_for - 1];
  } else {
    std::nth_element(replies, replies + (wait_for - 1), replies + n);
    reply = replies[wait_for - 1];
  }
  op->stage = Op::Stage::Reply;
  op->kind = kind_reply_;
  sim_.schedule_at(reply + cfg_.client_rtt, *op);
}

void ScyllaCluster::finish(Op* op) {
  const sim::Duration latency = sim_.now() - op->start;
  if (op->is_read) {
    read_latency_.record(latency);
  } else {
    write_latency_.record(latency);
    ++writes_done_;
  }
  free_ops_.push_back(op);
  op->sink->on_done(sim_, op->tag, latency);
}

void ScyllaCluster::reset_window(sim::Time now) {
  for (ShardId s = 0; s < shards_.size(); ++s) {
    advance(s, now);
    window_busy_[s] = shards_[s].busy_ns();
  }
  window_start_ = now;
}

double ScyllaCluster::utilisation(ShardId s, sim::Time now) {
  advance(s, now);
  if (now <= window_start_) {
    return 0.0;
  }
  return (shards_[s].busy_ns() - window_busy_[s]) / static_cast<double>(now - window_start_);
}

double ScyllaCluster::busy_ns(ShardId s, sim::Time now) {
  advance(s, now);
  return shards_.at(s).busy_ns();
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
  const std::uint32_t node = s / cfg_.shards_per_node;
  const std::uint32_t core = s % cfg_.shards_per_node;
  const sim::TraceTrack track = t->thread(
      t->process(name_), "node " + std::to_string(node) + " shard " + std::to_string(core));
  t->complete(track, what, "scylla", done - service, service,
              {{"partition", static_cast<std::int64_t>(key)},
               {"queued_ns", done - service - sim_.now()}});
}

}  // namespace scylla
