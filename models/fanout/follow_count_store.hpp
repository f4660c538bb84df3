#pragma once
// The Redis sorted set of high-follow accounts (domain.md §8.3): ZADD when an account's follow
// count crosses the limit, and a whole-set read (ZRANGEBYSCORE limit +inf WITHSCORES) that every
// fan-out instance issues every 30 s to refresh its in-memory HighFollowCache. Modelled as a
// single-threaded actor (Redis executes commands one at a time) with a fixed round trip.
#include <cstdint>
#include <map>
#include <vector>

#include "components/lossy/high_follow_cache.hpp"
#include "sim/simulation.hpp"

namespace fanout {

class FollowCountStore {
 public:
  // rtt: assumption 1 ms for a same-DC Redis read of a few thousand members.
  explicit FollowCountStore(sim::Duration rtt = sim::kMillisecond) : rtt_(rtt) {}

  void zadd(std::uint32_t user, std::uint64_t follows) { scores_[user] = follows; }
  // ZADD NX: only a member not there yet (an instance publishing the counts it was built with
  // must not overwrite a newer one another wrote into a shared set).
  void zadd_nx(std::uint32_t user, std::uint64_t follows) { scores_.emplace(user, follows); }
  void zrem(std::uint32_t user) { scores_.erase(user); }
  // Members with score >= min_score, in user order (the copy a reader receives).
  std::vector<lossy::FollowCountEntry> range_by_score(std::uint64_t min_score) const;
  sim::Duration rtt() const { return rtt_; }
  std::size_t size() const { return scores_.size(); }

 private:
  sim::Duration rtt_;
  std::map<std::uint32_t, std::uint64_t> scores_;
};

// One fan-out instance's refresher: every `period` it reads the set and, one rtt later, loads
// the snapshot into its cache, so lookups are in-memory and up to period + rtt stale.
class HighFollowRefresher final : public sim::Handler {
 public:
  // rtt < 0: the store's (one instance's link to Redis, else this one's).
  HighFollowRefresher(sim::Simulation& sim, FollowCountStore& store, lossy::HighFollowCache& cache,
                      sim::Duration period = 30 * sim::kSecond,  // 30 s: domain.md §8.3
                      sim::Duration rtt = -1);
  // Loads once now (an instance starts with a fresh copy) and schedules the next refreshes.
  void start();
  void stop() { stopped_ = true; }
  void on_event(sim::Simulation& sim) override;

 private:
  sim::Simulation& sim_;
  FollowCountStore& store_;
  lossy::HighFollowCache& cache_;
  sim::Duration period_;
  sim::Duration rtt_;
  bool reply_pending_ = false;
  bool stopped_ = false;
  std::vector<lossy::FollowCountEntry> in_flight_;
};

}  // namespace fanout
