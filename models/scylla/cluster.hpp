#pragma once
// A Scylla cluster of nodes x shards serving timeline partitions (one per user).
//
// A write: the shard-aware driver sends it to a random replica's owning shard, which acts as
// coordinator (CQL work on that shard's CPU); the coordinator forwards to all RF replicas and
// answers once CL of them have replied (domain.md §7.4, §7.5); a read goes to the CL replicas
// only (the coordinator's own first). Each shard is a Seastar reactor (reactor.hpp): statement
// work, compaction and streaming in scheduling groups with shares, cut at the task quota.
// An op fails with a timeout when CL replies have not come within write_timeout (2 s) /
// read_timeout (5 s) of the coordinator taking it (scylla.yaml write_request_timeout_in_ms,
// read_request_timeout_in_ms). Usually two kernel events per op (coordinator done, reply):
// a task that fits in a quota completes at a known instant when its shard is idle, or when
// only its group has work and nothing can cut in before it ends (Reactor::certain_completion,
// told the shard's next compaction trigger); a shard with work of unknown end wakes itself at
// its next scheduling decision.
//
// Network delays are constant and added on the reply path, so every shard sees arrivals in
// the order they were issued; a remote replica thus starts its work replica_rtt/2 earlier than
// it would in reality (docs/models/scylla.md states the approximation).
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "models/scylla/reactor.hpp"
#include "models/scylla/timeline_partition.hpp"
#include "models/scylla/token_ring.hpp"
#include "sim/histogram.hpp"
#include "sim/simulation.hpp"

namespace scylla {

enum class Consistency { One, Quorum, LocalQuorum, All };
enum class Placement { TokenRing, ShuffleShard };

Consistency parse_consistency(std::string_view s);  // "ONE", "QUORUM", "LOCAL_QUORUM", "ALL"
Placement parse_placement(std::string_view s);      // "token_ring", "shuffle_shard"
// Replies the coordinator waits for. One DC is modelled, so LOCAL_QUORUM = QUORUM.
std::uint32_t replies_needed(Consistency cl, std::uint32_t rf);

struct ScyllaConfig {
  std::uint32_t nodes = 16;            // assumption: 16 x 24 = 384 shards, "hundreds" (§8.1)
  std::uint32_t shards_per_node = 24;  // assumption: 24-core nodes, one shard per core (§7.1)
  std::uint32_t num_tokens = 256;      // domain.md §7.2 (sample scylla.yaml)
  std::uint32_t ignore_msb = 12;       // domain.md §7.3
  std::uint32_t rf = 3;                // domain.md §7.4 ("RF >= 3 typical")
  Consistency cl = Consistency::Quorum;  // assumption: Bluesky's CL is not published
  Placement placement = Placement::TokenRing;
  // Latency composition; the unloaded sum (client_rtt + coordinator + replica_rtt + write)
  // ~= 550 us is set near the published 600 us mean (domain.md §7.6). The tail is not set:
  // it comes from queueing.
  sim::Duration client_rtt = 300 * sim::kMicrosecond;   // assumption: same-DC round trip
  sim::Duration replica_rtt = 200 * sim::kMicrosecond;  // assumption: node-to-node round trip
  sim::Duration coordinator_service_mean = 20 * sim::kMicrosecond;  // assumption
  sim::Duration read_service_mean = 50 * sim::kMicrosecond;         // assumption
  bool exponential_service = true;  // false: every service time equals its mean ("no tail")
  TimelineCostModel timeline;
  // Background: the rest of the fleet's timeline writes, > 1M/s at busy times (§8.3), spread
  // evenly over shards. `scale` simulates that fraction of them, each carrying 1/scale of the
  // work, so per-shard utilisation is scale-invariant (docs/models/scylla.md).
  double background_writes_per_s = 0.0;
  double scale = 0.01;
  double hot_utilisation = 0.8;  // a shard busier than this over a window is "hot" (docs)
  ReactorConfig reactor;          // task quota and scheduling-group shares
  // Scylla's defaults: write_request_timeout_in_ms 2000, read_request_timeout_in_ms 5000.
  sim::Duration write_timeout = 2 * sim::kSecond;
  sim::Duration read_timeout = 5 * sim::kSecond;
  // Speculative retry: a read whose CL replies have not all arrived this long after it was
  // sent also goes to one more replica, and the first CL replies answer it. 0 = off (the
  // default here; Scylla's table default is '99.0PERCENTILE', docs/models/scylla.md).
  sim::Duration speculative_retry = 0;

  void validate() const;
  std::uint32_t total_shards() const { return nodes * shards_per_node; }
};

using PartitionKey = std::uint32_t;  // a user id: one Timeline partition per user
using ShardId = std::uint32_t;       // node * shards_per_node + core

class WriteSink {
 public:
  virtual ~WriteSink() = default;
  virtual void on_done(sim::Simulation& sim, std::uint64_t tag, sim::Duration latency) = 0;
  // The coordinator answered WriteTimeout/ReadTimeout: fewer than CL replicas replied within
  // the timeout. Default: the caller moves on as after a completion (a driver that gives up);
  // a sink that counts what was stored overrides it.
  virtual void on_timeout(sim::Simulation& sim, std::uint64_t tag, sim::Duration latency) {
    on_done(sim, tag, latency);
  }
};

class ScyllaCluster {
 public:
  ScyllaCluster(sim::Simulation& sim, ScyllaConfig cfg, std::uint32_t partitions,
                std::string_view name = "scylla");
  ~ScyllaCluster();
  ScyllaCluster(const ScyllaCluster&) = delete;
  ScyllaCluster& operator=(const ScyllaCluster&) = delete;

  // `via`: which of the key's replicas (0 .. rf-1, in replicas() order) coordinates the op --
  // a client that picks the coordinator itself, as a token-aware driver does, and so knows
  // which node sees the request (docs/models/scylla.md, "Coordinator choice"). kDriverChoice:
  // the driver picks a random replica (the cluster's service stream draws it, as before).
  // A chosen replica on a down node falls back to the driver's choice among the live ones.
  static constexpr std::uint32_t kDriverChoice = 0xFFFF'FFFFu;
  void write(PartitionKey key, WriteSink& sink, std::uint64_t tag,
             std::uint32_t via = kDriverChoice);
  void read(PartitionKey key, std::uint32_t rows, WriteSink& sink, std::uint64_t tag,
            std::uint32_t via = kDriverChoice);

  // A partition written at `writes_per_s` by the rest of the fleet (a hyper-following
  // account's timeline); simulated write by write, never scaled.
  void add_background_partition(PartitionKey key, double writes_per_s);
  // A partition the rest of the fleet writes through the caller: it generates no writes of its
  // own; each background_write(key) is one fire-and-forget row on every replica at now (nobody
  // waits, no coordinator), with the same trim cost as the Poisson writer above. Its copies
  // start as if written at warm_writes_per_s since their shard's last compaction (>= 0).
  void add_fed_partition(PartitionKey key, double warm_writes_per_s);
  // rows > 1: one coalesced write of that many rows on each replica -- one task whose CPU is
  // rows x write_service_mean (assumption: no per-row saving; the mean, a sum of many draws)
  // plus at most one trim (TimelinePartition::write_rows_after).
  void background_write(PartitionKey key, std::uint32_t rows = 1);
  std::uint64_t background_writes() const { return background_writes_; }  // rows, not x RF

  // RF shards holding the partition (global shard ids).
  const ShardId* replicas(PartitionKey key);
  std::uint32_t rf() const { return cfg_.rf; }
  std::uint32_t node_of(ShardId s) const { return s / cfg_.shards_per_node; }
  // Statement tasks shard s has been given (coordinator steps, replica reads and writes, the
  // hyper-written partitions' rows; not the fluid fleet background, whose arrivals are the
  // same under every caller), and the most any shard has: the hot shard's operation count.
  std::uint64_t statement_ops(ShardId s) const;
  std::uint64_t max_statement_ops() const;

  // Utilisation since the last reset_window() (background generated up to `now` first).
  void reset_window(sim::Time now);
  double utilisation(ShardId s, sim::Time now);
  std::uint32_t count_hot_shards(sim::Time now);
  std::vector<double> utilisations(sim::Time now);
  // Work admitted to shard s since the start of the run (background generated up to `now`).
  double busy_ns(ShardId s, sim::Time now);

  // Fault hook: nodes [0, n) are down (n <= nodes). The shard-aware driver picks a live
  // replica as coordinator, and only live replicas take the op (no hinted handoff); the reply
  // waits for CL of them. With fewer live replicas than CL needs the op is Unavailable, and the
  // driver retries it until enough are back (assumption: a retry policy that never gives up),
  // so it waits. Background writes keep their share of a down node's shards (a fluid stand-in).
  void set_down_nodes(std::uint32_t n);
  // A node's process killed (the machine's OOM killer, the kubelet's eviction) or back: down
  // as the fault hook's nodes are, whatever down_nodes says.
  void set_node_killed(std::uint32_t node, bool killed);
  bool node_killed(std::uint32_t node) const { return killed_[node] != 0; }
  // Nodes down now: the fault hook's first down_nodes and any killed one.
  std::uint32_t down_nodes() const;
  // Fault hook: every task the shards of node 0 take (coordinator steps and replica work)
  // needs `factor` times its drawn CPU (a slow node: a failing disk, a noisy neighbour);
  // 1 = none. Tasks already queued keep theirs.
  void set_slow_node(double factor);
  double slow_node() const { return slow_factor_; }
  std::uint64_t unavailable() const { return unavailable_; }  // ops that had to wait
  std::size_t waiting() const { return parked_.size(); }      // ops waiting now
  std::uint64_t degraded() const { return degraded_; }  // ops served by fewer than RF replicas

  const sim::Histogram& write_latency() const { return write_latency_; }
  const sim::Histogram& read_latency() const { return read_latency_; }
  void reset_latency() {
    write_latency_.reset();
    read_latency_.reset();
  }
  const ScyllaConfig& config() const { return cfg_; }
  // When shard s compacts: at compaction_phase(s) + k * timeline.compaction_interval.
  sim::Duration compaction_phase(ShardId s) const { return compaction_phase_.at(s); }
  const TokenRing& ring() const { return ring_; }
  TimelinePartition& partition(PartitionKey k) { return partitions_.at(k); }
  std::uint32_t partitions() const { return static_cast<std::uint32_t>(partitions_.size()); }
  std::uint64_t writes_done() const { return writes_done_; }
  std::uint64_t write_timeouts() const { return write_timeouts_; }
  std::uint64_t read_timeouts() const { return read_timeouts_; }
  std::uint64_t compactions_done() const { return compactions_done_; }
  std::uint64_t speculative_reads() const { return speculative_reads_; }
  // CPU each scheduling group of shard s has had (the shard run up to `now` first).
  sim::Duration group_ran(ShardId s, Group g, sim::Time now);
  // Every shard's reactor conserves work; no op reached more than RF replicas
  // (cluster_check.cpp). "" or the first breach.
  std::string check_invariants() const;

 private:
  struct Op;
  struct Shard;
  struct TimeoutWheel;
  // The fleet's writes into one hyper-followed partition, as seen by one replica shard (each
  // replica keeps its own copy of the partition, hence its own trim state).
  struct HotWriter {
    PartitionKey key;
    double rate_per_ns;  // 0: fed by background_write(), no arrivals of its own
    sim::Time next;
    TimelinePartition copy;
  };
  friend struct Op;
  friend struct Shard;
  friend struct TimeoutWheel;

  void start(Op* op);
  void replicate(Op* op);
  void finish(Op* op);
  void time_out(Op* op);
  void maybe_free(Op* op);
  // A reply instant became known; schedules the client's answer once CL are known.
  void learn_reply(Op* op, std::uint32_t slot, sim::Time done);
  void decide(Op* op);
  void speculate(Op* op);
  // Queues a replica's task for the op's slot (sent_to[slot] set); learns its reply at once
  // when its end is already certain.
  void send_replica(Op* op, std::uint32_t slot, sim::Duration service);
  // A task with a cookie completed on a shard (exactly now).
  void on_task_done(Shard& sh, std::uint64_t cookie, sim::Time at);
  void on_shard_event(Shard& sh);
  void wake_at_next_decision(Shard& sh);
  // Queues work on shard s at now (run up to now first); cookie 0 = nobody waits for it.
  void submit(Shard& sh, Group g, sim::Duration work, std::uint64_t cookie);
  void run_to(Shard& sh, sim::Time t);
  void advance(ShardId s, sim::Time now);
  void arm(TimeoutWheel& w, Op* op, sim::Time fire_at);
  // Records one op's work on a shard, [done - service, done] clipped to the shard's previous
  // slice, in the attached tracer (one thread track per shard).
  void trace_shard_op(ShardId s, const char* what, sim::Time done, sim::Duration service,
                      PartitionKey key);
  sim::Duration draw(sim::Duration mean);
  // write() and read(): a fresh op for `key`, coordinated by replica `via` (or the driver's).
  void start_new_op(PartitionKey key, bool is_read, std::uint32_t rows, WriteSink& sink,
                    std::uint64_t tag, std::uint32_t via);
  Op* alloc_op();
  void compute_route(PartitionKey key);
  // A read's scan cost on `key` of `rows` rows past the shadowed ones (TimelinePartition).
  sim::Duration read_cost(PartitionKey key, std::uint32_t rows, sim::Time purged);

  sim::Simulation& sim_;
  ScyllaConfig cfg_;
  sim::Rng& rng_;     // service times, coordinator choice
  sim::Rng& bg_rng_;  // background arrivals
  TokenRing ring_;
  std::vector<Shard*> shards_;
  std::vector<sim::Time> trace_end_;  // per shard, the end of its last traced slice
  std::vector<std::vector<HotWriter>> hot_;  // per shard
  std::vector<TimelinePartition> partitions_;
  std::vector<bool> written_;  // per partition: an op has written it (only then can it shadow rows)
  std::vector<ShardId> routes_;  // rf per partition; kNoRoute until computed
  std::vector<double> window_busy_;
  std::vector<sim::Duration> compaction_phase_;  // per shard
  sim::Time window_start_ = 0;
  double bg_rate_per_ns_ = 0;  // simulated background arrivals per shard per ns
  double bg_gap_mean_ns_ = 0;  // 1 / bg_rate_per_ns_, once (advance() draws a gap per arrival)
  double bg_rows_per_write_ = 1;  // 1 / scale, once
  sim::Duration bg_service_mean_ = 0;
  sim::Histogram write_latency_;
  sim::Histogram read_latency_;
  std::vector<Op*> free_ops_;
  std::vector<Op*> all_ops_;
  sim::Kind kind_coord_;
  sim::Kind kind_reply_;
  sim::ActorId actor_;
  std::string name_;  // the process track in a trace
  std::uint64_t writes_done_ = 0;
  std::uint64_t background_writes_ = 0;
  // One hyper-written row on shard s at t (the shard run up to t first by the caller).
  void hot_write(Shard& sh, HotWriter& w, sim::Time t, std::uint32_t rows = 1);
  std::uint32_t needed_;
  std::uint32_t down_nodes_ = 0;
  std::vector<char> killed_;      // per node
  std::uint32_t killed_count_ = 0;
  bool any_down() const { return down_nodes_ > 0 || killed_count_ > 0; }
  // Retries the ops parked Unavailable (a node came back).
  void retry_parked();
  double slow_factor_ = 1.0;
  // A task's CPU on shard s under the slow-node fault.
  sim::Duration on_shard(ShardId s, sim::Duration service) const {
    if (slow_factor_ == 1.0 || s / cfg_.shards_per_node != 0) return service;
    return static_cast<sim::Duration>(static_cast<double>(service) * slow_factor_);
  }
  std::uint64_t unavailable_ = 0;
  std::uint64_t degraded_ = 0;
  std::uint64_t write_timeouts_ = 0;
  std::uint64_t read_timeouts_ = 0;
  std::uint64_t compactions_done_ = 0;
  std::uint64_t speculative_reads_ = 0;
  TimeoutWheel* write_wheel_ = nullptr;
  TimeoutWheel* read_wheel_ = nullptr;
  std::uint64_t replica_ops_ = 0;     // replica admissions by replicate()
  std::uint64_t replicated_ops_ = 0;  // ops replicate() sent to their replicas
  std::string route_error_;           // the first route with a shard twice (cluster_check.cpp)
  void note_route(PartitionKey key, const ShardId* route);
  const char* shard_conservation_error(std::size_t s) const;  // Shard is cluster.cpp's
  std::vector<Op*> parked_;  // Unavailable ops, retried in arrival order when a node returns
  bool node_down(ShardId s) const {
    const std::uint32_t node = node_of(s);
    return node < down_nodes_ || killed_[node] != 0;
  }
  // The live replicas of `r` into `live` (at most 16); how many. False: fewer than CL needs,
  // and the op has been parked.
  bool live_or_park(Op* op, const ShardId* r, ShardId* live, std::uint32_t& n_live);
};

}  // namespace scylla
