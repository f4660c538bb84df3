#include "models/fanout/split_timelines.hpp"

#include <stdexcept>

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

}  // namespace

SplitTimelines::SplitTimelines(const social::FollowGraph& g, std::uint32_t split_follows)
    : first_extra_(g.users() + 1) {
  split_extra_partitions(g, split_follows);  // refuses a layout past 2^32 partitions
  std::uint32_t next = 2 * g.users();
  for (social::UserId u = 0; u < g.users(); ++u) {
    first_extra_[u] = next;
    next += split_parts(g.follow_count(u), split_follows) - 1;
  }
  first_extra_[g.users()] = next;
}

std::uint32_t SplitTimelines::partition(std::uint32_t follower, std::uint32_t author) const {
  const std::uint32_t n = parts(follower);
  if (n == 1) return follower;
  const auto j = static_cast<std::uint32_t>(mix(author) % n);
  return j == 0 ? follower : first_extra_[follower] + j - 1;
}

}  // namespace fanout
