#pragma once
// What a post's rows need of the fan-out they pass through (issue 26): its page decision, where
// a follower's rows go, and how one of the fleet's rows is written. The fan-out service answers
// for its own policy (FanoutService); a composition's `fanout-fleet` service answers for the rest
// of the fleet's instances, which run the same production filter beside the simulated one.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/social/follow_graph.hpp"
#include "sim/rng.hpp"

namespace fanout {

class PostRoute {
 public:
  virtual ~PostRoute() = default;
  // The chance the page decision keeps a row for `u` (1 where no page is thinned).
  virtual double keep_probability(social::UserId u) const = 0;
  // The partitions `u`'s timeline rows are spread over (one per user but under `split`).
  virtual void timeline_partitions(social::UserId u, std::vector<std::uint32_t>& out) const = 0;
  // The partition holding `author`'s post in `u`'s timeline.
  virtual std::uint32_t timeline_partition(social::UserId u, social::UserId author) const = 0;
  // One page of followers through the page decision: the kept ones appended to `out`, one r
  // drawn from `page_r` where the decision is lossy.
  virtual void filter_page(const social::UserId* page, std::size_t n, sim::Rng& page_r,
                           std::vector<social::UserId>& out) const = 0;
  // One row the fleet writes into `partition`: nobody waits for it.
  virtual void write_row(std::uint32_t partition) = 0;
};

}  // namespace fanout
