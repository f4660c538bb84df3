#pragma once
// One fan-out instance's page decision, whole (domain.md §8.3): the accounts above the
// reasonable limit published to the sorted-set store, the instance's HighFollowCache reloaded
// from it every `refresh`, and the production rule (components/lossy CacheFilter) applied to a
// page with one r drawn just before it is written, every decision audited against the
// binomial bound of keep_bound.hpp. `lossy` false is the feature flag off: every follower kept
// (full fan-out), nothing refreshed.
//
// FanoutService keeps these inside itself; a composition's `lossy_filter` step (one
// per step and process) and its `fanout-fleet` service (the rest of the fleet's instances)
// each own one.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "components/lossy/high_follow_cache.hpp"
#include "components/lossy/page_filter.hpp"
#include "models/fanout/follow_count_store.hpp"
#include "models/fanout/keep_bound.hpp"
#include "models/fanout/staleness_audit.hpp"
#include "models/social/follow_graph.hpp"
#include "sim/rng.hpp"
#include "sim/simulation.hpp"

namespace fanout {

struct InstanceFilterConfig {
  bool lossy = true;
  std::uint64_t reasonable_limit = 2'000;           // domain.md §8.3
  sim::Duration refresh = 30 * sim::kSecond;        // domain.md §8.3
  sim::Duration redis_rtt = sim::kMillisecond;      // assumption, as FanoutConfig's

  void validate() const;
};

class InstanceFilter {
 public:
  // `shared`: the sorted set of the whole system (a follow-graph service's, which the graph's
  // growth writes), or null for a set of this instance's own. Must outlive this.
  InstanceFilter(sim::Simulation& sim, const social::FollowGraph& graph, InstanceFilterConfig cfg,
                 FollowCountStore* shared = nullptr);
  InstanceFilter(const InstanceFilter&) = delete;
  InstanceFilter& operator=(const InstanceFilter&) = delete;

  // Publishes every account above the limit (into a shared set only those not in it: ZADD NX)
  // and loads the cache now; refreshes it every `refresh` until stop(). Nothing to do when not
  // lossy.
  void start();
  void stop() { refresher_.stop(); }

  // One page through the decision: the kept followers appended to `out`.
  void filter_page(const social::UserId* page, std::size_t n, sim::Rng& page_r,
                   std::vector<social::UserId>& out);
  double keep_probability(social::UserId u) const {
    return cfg_.lossy ? filter_.keep_probability(u) : 1.0;
  }
  bool lossy() const { return cfg_.lossy; }
  const lossy::HighFollowCache& cache() const { return cache_; }
  std::uint64_t reasonable_limit() const { return cfg_.reasonable_limit; }
  // The production decision alone (what a grower's timeline starts from), and the set it reads.
  const lossy::PageFilter& decision() const { return filter_; }
  FollowCountStore& store() { return store_; }
  // Every later decision audited against `truth` (the graph's growth); its counts per class.
  void audit_with(const FollowTruth& truth);
  const StalenessAudit* audit() const { return audit_.get(); }
  // "" or a follower kept less often than its loss factor allows.
  std::string keep_bound_error() { return keep_bound_.check(); }

 private:
  const social::FollowGraph& graph_;
  InstanceFilterConfig cfg_;
  FollowCountStore own_store_;
  FollowCountStore& store_;  // own_store_, or the system's shared set
  lossy::HighFollowCache cache_;
  HighFollowRefresher refresher_;
  lossy::CacheFilter filter_;
  KeepBound keep_bound_;
  std::unique_ptr<StalenessAudit> audit_;  // null: decisions unaudited
  std::vector<double> keep_q_;  // one page's keep probabilities (scratch)
};

}  // namespace fanout
