#pragma once
// split's storage layout (the fan-out write-up's discussion: "one timeline per 1,000 follows,
// merged by the client"): a user following more than split_follows accounts has one
// sub-timeline per split_follows follows, each its own partition. Partitions [0, users) are each
// user's part 0 (its timeline, as without the split), [users, 2 users) the recent-post lists, and
// from 2 users on the further parts of split users, consecutive per user. Fixed from the follow
// counts when built (assumption: no re-split during a run; a user who follows more keeps its
// parts). Shared by FanoutService's split policy and the composition's follower_pages and
// read_set steps, so both write and read the same partitions.
#include <cstdint>
#include <vector>

#include "models/social/follow_graph.hpp"

namespace fanout {

// How many sub-timelines a user following `follows` accounts has (>= 1); split_follows >= 1.
std::uint32_t split_parts(std::uint32_t follows, std::uint32_t split_follows);
// The partitions the layout needs beyond the 2 x users of the others.
std::uint32_t split_extra_partitions(const social::FollowGraph& g, std::uint32_t split_follows);

class SplitTimelines {
 public:
  SplitTimelines(const social::FollowGraph& g, std::uint32_t split_follows);

  // The partition a post by `author` goes into in `follower`'s timeline: part
  // mix(author) mod parts(follower), so a hyper-follower's incoming rows spread over its parts.
  std::uint32_t partition(std::uint32_t follower, std::uint32_t author) const;
  std::uint32_t parts(std::uint32_t user) const {
    return 1 + first_extra_[user + 1] - first_extra_[user];
  }
  // The partitions of `user`'s parts 1.. (part 0 is `user` itself): [begin, end).
  std::uint32_t extra_begin(std::uint32_t user) const { return first_extra_[user]; }
  std::uint32_t extra_end(std::uint32_t user) const { return first_extra_[user + 1]; }
  // Appends those partitions to `out`.
  void append_extra(std::uint32_t user, std::vector<std::uint32_t>& out) const {
    for (std::uint32_t p = extra_begin(user); p < extra_end(user); ++p) out.push_back(p);
  }
  // Every partition the layout names is below this.
  std::uint32_t partitions() const { return first_extra_.back(); }

 private:
  std::vector<std::uint32_t> first_extra_;  // users + 1 entries
};

}  // namespace fanout
