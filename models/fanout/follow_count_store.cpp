#include "models/fanout/follow_count_store.hpp"

#include <stdexcept>

namespace fanout {

std::vector<lossy::FollowCountEntry> FollowCountStore::range_by_score(
    std::uint64_t min_score) const {
  std::vector<lossy::FollowCountEntry> out;
  for (const auto& [user, score] : scores_) {
    if (score >= min_score) {
      out.push_back({user, score});
    }
  }
  return out;
}

HighFollowRefresher::HighFollowRefresher(sim::Simulation& sim, FollowCountStore& store,
                                         lossy::HighFollowCache& cache, sim::Duration period,
                                         sim::Duration rtt)
    : sim_(sim), store_(store), cache_(cache), period_(period), rtt_(rtt < 0 ? store.rtt() : rtt) {
  if (period <= 0) {
    throw std::invalid_argument("fanout: high-follow cache refresh period must be > 0");
  }
  actor_id = sim.new_actor_id();
  kind = sim.intern_kind("fanout.follow_cache_refresh");
}

void HighFollowRefresher::start() {
  cache_.load(store_.range_by_score(cache_.reasonable_limit() + 1), sim_.now());
  sim_.schedule_in(period_, *this);
}

void HighFollowRefresher::on_event(sim::Simulation& sim) {
  if (stopped_) {
    return;
  }
  if (reply_pending_) {
    cache_.load(std::move(in_flight_), sim.now());
    in_flight_.clear();
    reply_pending_ = false;
    sim.schedule_in(period_ - rtt_ > 0 ? period_ - rtt_ : period_, *this);
    return;
  }
  // The snapshot is taken when Redis executes the command; it arrives one rtt later.
  in_flight_ = store_.range_by_score(cache_.reasonable_limit() + 1);
  reply_pending_ = true;
  sim.schedule_in(rtt_, *this);
}

}  // namespace fanout
