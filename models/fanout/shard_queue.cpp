#include "models/fanout/shard_queue.hpp"

#include <algorithm>
#include <stdexcept>

namespace fanout {

void ShardQueueConfig::validate() const {
  if (!(rate_per_s > 0) || in_flight == 0) {
    throw std::invalid_argument(
        "fanout: shard_queue_rate must be > 0 and shard_queue_in_flight >= 1");
  }
}

ShardQueue::ShardQueue(sim::Simulation& sim, scylla::ScyllaCluster& cluster, ShardQueueConfig cfg)
    : sim_(sim), cluster_(cluster), cfg_((cfg.validate(), cfg)) {
  const sim::Kind kind = sim.intern_kind("fanout.shard_queue");
  lanes_.reserve(cluster.config().total_shards());
  for (std::uint32_t s = 0; s < cluster.config().total_shards(); ++s) {
    auto lane = std::make_unique<Lane>();
    lane->owner = this;
    lane->tokens = cfg_.in_flight;
    lane->actor_id = sim.new_actor_id();
    lane->kind = kind;
    lanes_.push_back(std::move(lane));
  }
}

ShardQueue::~ShardQueue() {
  if (!sim_.shutting_down() && !sim_.idle()) {
    sim_.shutdown();  // pending refill wake-ups and in-flight writes point into the lanes
  }
}

void ShardQueue::push(scylla::PartitionKey key, Client& client, std::uint64_t tag) {
  Lane& lane = *lanes_[cluster_.replicas(key)[0]];
  lane.items.push_back({key, &client, tag, sim_.now()});
  ++queued_;
  max_depth_ = std::max<std::uint64_t>(max_depth_, lane.items.size());
  drain(lane);
}

void ShardQueue::drain(Lane& lane) {
  const sim::Time now = sim_.now();
  const double burst = cfg_.in_flight;
  lane.tokens = std::min(
      burst, lane.tokens + cfg_.rate_per_s * static_cast<double>(now - lane.refilled) / 1e9);
  lane.refilled = now;
  while (!lane.items.empty() && lane.in_flight < cfg_.in_flight && lane.tokens >= 1.0) {
    const Item it = lane.items.front();
    lane.items.pop_front();
    --queued_;
    lane.tokens -= 1.0;
    ++lane.in_flight;
    delay_.record(now - it.queued_at);
    std::uint32_t slot;
    if (free_slots_.empty()) {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    slots_[slot] = {&lane, it.client, it.tag};
    cluster_.write(it.key, *this, slot);
  }
  // Waiting for a token (not for a reply): wake when the next one has accrued.
  if (!lane.items.empty() && lane.in_flight < cfg_.in_flight && !lane.armed) {
    const double missing = 1.0 - lane.tokens;
    lane.armed = true;
    sim_.schedule_in(static_cast<sim::Duration>(missing * 1e9 / cfg_.rate_per_s) + 1, lane);
  }
}

void ShardQueue::Lane::on_event(sim::Simulation&) {
  armed = false;
  owner->drain(*this);
}

void ShardQueue::answered(std::uint64_t slot, sim::Duration latency, bool timed_out) {
  const Slot s = slots_[slot];
  free_slots_.push_back(static_cast<std::uint32_t>(slot));
  --s.lane->in_flight;
  drain(*s.lane);
  s.client->on_queued_done(sim_, s.tag, latency, timed_out);
}

void ShardQueue::on_done(sim::Simulation&, std::uint64_t slot, sim::Duration latency) {
  answered(slot, latency, false);
}

void ShardQueue::on_timeout(sim::Simulation&, std::uint64_t slot, sim::Duration latency) {
  answered(slot, latency, true);
}

}  // namespace fanout
