#pragma once
// What the graph's growth during a run (follow_growth.hpp) needs from the fan-out beside it: the
// reasonable limit and whether pages are thinned, the sorted set a follow's new count goes to,
// the page decision its growers' rows go through and the cache that decision reads, and where a
// kept row is written. A FanoutService is one (FollowGrowth's FanoutService constructor); a
// composition's fanout-fleet is another (scenarios/kind_fanout_fleet.cpp).
#include <cstdint>
#include <memory>
#include <vector>

#include "components/lossy/high_follow_cache.hpp"
#include "components/lossy/page_filter.hpp"
#include "models/fanout/follow_count_store.hpp"
#include "models/social/follow_graph.hpp"
#include "sim/rng.hpp"

namespace fanout {

class GrowthHost {
 public:
  virtual ~GrowthHost() = default;
  virtual std::uint64_t reasonable_limit() const = 0;
  // Lossy pages (policies lossy and lossy_on_read, a fleet under lossy): a grower's rows are
  // thinned by its loss factor.
  virtual bool thins_pages() const = 0;
  // The sorted set of accounts above the limit (ZADD of a follow's new count).
  virtual FollowCountStore& store() = 0;
  // The page decision whose keep probability a grower's timeline starts from, and the cache
  // snapshot it reads now (the staleness audit's "cached count").
  virtual const lossy::PageFilter& page_filter() const = 0;
  virtual std::shared_ptr<const lossy::FollowSnapshot> cache_snapshot() const = 0;
  // One page through the host's decision (its r drawn from page_r), and a kept row written.
  virtual void filter_page(const social::UserId* page, std::size_t n, sim::Rng& page_r,
                           std::vector<social::UserId>& out) = 0;
  virtual void write_background_row(std::uint32_t partition) = 0;
};

}  // namespace fanout
