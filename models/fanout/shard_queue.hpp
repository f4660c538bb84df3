#pragma once
// The fan-out queue of the shard_queue policy (policies/shard_queue.cpp), partitioned by the
// Scylla shard a write lands on (its partition's first replica, as the shard-aware driver
// routes it). Each shard's lane is drained in arrival order under two limits of its own: a
// token bucket of rate_per_s (burst: in_flight tokens) and at most in_flight writes
// outstanding. A slow shard therefore holds back only the writes queued for it; the fan-out
// job queues a page and fetches the next at once. Measured: each write's queueing delay (queued
// -> sent) and the deepest lane.
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "models/scylla/cluster.hpp"
#include "sim/histogram.hpp"
#include "sim/simulation.hpp"

namespace fanout {

struct ShardQueueConfig {
  // Assumption: 2,000 writes/s per shard, ~4 % of a shard at ~20 us per write, so the fan-out
  // never takes a shard from the rest of the fleet; a 2M-follower post (~5,200 writes per shard
  // over 384 shards) drains in ~2.6 s on a cool shard.
  double rate_per_s = 2'000;
  // Assumption: 32 outstanding per shard (384 x 32 = 12,288 cluster-wide vs full's 1,000).
  std::uint32_t in_flight = 32;
  void validate() const;
};

class ShardQueue final : public scylla::WriteSink {
 public:
  // Who is told when a queued write has been answered.
  class Client {
   public:
    virtual ~Client() = default;
    virtual void on_queued_done(sim::Simulation& sim, std::uint64_t tag, sim::Duration latency,
                                bool timed_out) = 0;
  };

  ShardQueue(sim::Simulation& sim, scylla::ScyllaCluster& cluster, ShardQueueConfig cfg);
  ~ShardQueue() override;

  void push(scylla::PartitionKey key, Client& client, std::uint64_t tag);

  void on_done(sim::Simulation& sim, std::uint64_t slot, sim::Duration latency) override;
  void on_timeout(sim::Simulation& sim, std::uint64_t slot, sim::Duration latency) override;

  const sim::Histogram& delay() const { return delay_; }  // queued -> sent, ns
  std::uint64_t max_depth() const { return max_depth_; }  // the deepest lane seen
  std::uint64_t queued() const { return queued_; }        // writes waiting now

 private:
  struct Item {
    scylla::PartitionKey key;
    Client* client;
    std::uint64_t tag;
    sim::Time queued_at;
  };
  struct Lane final : sim::Handler {
    ShardQueue* owner = nullptr;
    std::deque<Item> items;
    std::uint32_t in_flight = 0;
    double tokens = 0;
    sim::Time refilled = 0;
    bool armed = false;  // a refill wake-up is scheduled
    void on_event(sim::Simulation& sim) override;
  };
  struct Slot {
    Lane* lane = nullptr;
    Client* client = nullptr;
    std::uint64_t tag = 0;
  };

  void drain(Lane& lane);
  void answered(std::uint64_t slot, sim::Duration latency, bool timed_out);

  sim::Simulation& sim_;
  scylla::ScyllaCluster& cluster_;
  ShardQueueConfig cfg_;
  std::vector<std::unique_ptr<Lane>> lanes_;  // per shard
  std::vector<Slot> slots_;                   // writes in flight, by slot index
  std::vector<std::uint32_t> free_slots_;
  sim::Histogram delay_;
  std::uint64_t max_depth_ = 0;
  std::uint64_t queued_ = 0;
};

}  // namespace fanout
