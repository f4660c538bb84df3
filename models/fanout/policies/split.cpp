// split: a user's timeline is split into one sub-timeline per split_follows (1,000) follows,
// each its own partition, and a read merges them (the fan-out write-up's discussion: "one
// timeline per 1,000 follows, merged by the client"). A post by author a into follower f goes to
// f's sub-timeline mix(a) mod parts(f), so a hyper-follower's incoming rows spread over
// parts(f) partitions -- placed on different shards by the ring -- instead of one. Costs: every
// load of a split timeline reads all its parts, each a page of rows (the merge cannot know
// which part holds the newest rows), so reads, rows and merges per load grow with follows.
//
// Layout: partitions [0, users) are each user's first part (its timeline, as under full),
// [users, 2 users) the recent-post lists (unused here), and from 2 users on the further parts
// of split users, consecutive per user. The part count is fixed from the follow counts at
// start (assumption: no re-split during a run; a user who follows more keeps its parts).
#include <stdexcept>

#include "models/fanout/policies/policy.hpp"

namespace fanout {

std::uint32_t split_parts(std::uint32_t follows, std::uint32_t split_follows) {
  if (split_follows == 0) {
    throw std::invalid_argument("fanout: split_follows must be >= 1");
  }
  return follows <= split_follows ? 1 : (follows + split_follows - 1) / split_follows;
}

std::uint32_t split_extra_partitions(const social::FollowGraph& g, std::uint32_t split_follows) {
  std::uint64_t extra = 0;
  for (social::UserId u = 0; u < g.users(); ++u) {
    extra += split_parts(g.follow_count(u), split_follows) - 1;
  }
  if (extra + 2ull * g.users() > 0xFFFF'FFFFull) {
    throw std::invalid_argument("fanout: split needs more than 2^32 partitions");
  }
  return static_cast<std::uint32_t>(extra);
}

namespace {

// Spreads author ids over parts (splitmix64's finaliser): consecutive ids land on different
// parts, and the mapping is a pure function of the id (no stream, no std::hash).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class Split final : public EveryFollower {
 public:
  explicit Split(const PolicyContext& ctx)
      : EveryFollower(ctx.lists_base),
        page_rows_(ctx.read_page_rows),
        first_extra_(ctx.graph.users() + 1) {
    // first_extra_[u]: the partition of u's part 1; parts of u are [first_extra_[u], [u+1]).
    std::uint32_t next = 2 * ctx.graph.users();
    for (social::UserId u = 0; u < ctx.graph.users(); ++u) {
      first_extra_[u] = next;
      next += split_parts(ctx.graph.follow_count(u), ctx.split_follows) - 1;
    }
    first_extra_[ctx.graph.users()] = next;
  }

  FanoutPolicy id() const override { return FanoutPolicy::Split; }

  std::uint32_t timeline_partition(std::uint32_t follower, std::uint32_t author) const override {
    const std::uint32_t n = parts(follower);
    if (n == 1) {
      return follower;
    }
    const auto j = static_cast<std::uint32_t>(mix(author) % n);
    return j == 0 ? follower : first_extra_[follower] + j - 1;
  }
  void timeline_partitions(std::uint32_t user, std::vector<std::uint32_t>& out) const override {
    out.push_back(user);
    for (std::uint32_t p = first_extra_[user]; p < first_extra_[user + 1]; ++p) {
      out.push_back(p);
    }
  }
  // The reader's own part 0 is added by the service; the merge reads a page from every other.
  void read_keys(std::uint32_t reader, std::vector<ReadKey>& keys) const override {
    for (std::uint32_t p = first_extra_[reader]; p < first_extra_[reader + 1]; ++p) {
      keys.push_back({p, page_rows_});
    }
  }

 private:
  std::uint32_t parts(std::uint32_t u) const { return 1 + first_extra_[u + 1] - first_extra_[u]; }

  std::uint32_t page_rows_;
  std::vector<std::uint32_t> first_extra_;
};

}  // namespace

std::unique_ptr<Policy> make_split_policy(const PolicyContext& ctx) {
  return std::make_unique<Split>(ctx);
}

}  // namespace fanout
