#pragma once
// The in-memory copy of the "high-follow accounts" sorted set that every fan-out instance
// reloads every 30 s (domain.md §8.3): looking follow counts up in the primary database
// would add > 1M reads/s. Accounts absent from the snapshot are below the limit (inference,
// domain.md §8.3) and get loss_factor 1. Lookups are O(log n) on a sorted vector: no hash
// iteration, identical on every platform.
#include <cstdint>
#include <utility>
#include <vector>

#include "components/lossy/loss_factor.hpp"

namespace lossy {

struct FollowCountEntry {
  UserId user = 0;
  std::uint64_t follows = 0;
};

class HighFollowCache {
 public:
  explicit HighFollowCache(std::uint64_t reasonable_limit);

  // Replaces the snapshot (entries in any order; a duplicate user is an error).
  void load(std::vector<FollowCountEntry> entries, std::int64_t loaded_at_ns);

  // 0 when the user is not in the snapshot (below the limit as far as this instance knows).
  std::uint64_t follows(UserId u) const;
  double loss_factor_of(UserId u) const;

  std::uint64_t reasonable_limit() const { return limit_; }
  std::size_t size() const { return entries_.size(); }
  std::int64_t loaded_at_ns() const { return loaded_at_ns_; }
  std::uint64_t loads() const { return loads_; }

 private:
  std::uint64_t limit_;
  std::vector<FollowCountEntry> entries_;  // sorted by user
  std::int64_t loaded_at_ns_ = -1;
  std::uint64_t loads_ = 0;
};

// Filters one page of followers in place order: kept users are appended to `out`.
// `page_r` must be the single draw in [0,1) made just before writing this page.
void filter_page(const HighFollowCache& cache, const UserId* page, std::size_t n, double page_r,
                 std::vector<UserId>& out);

}  // namespace lossy
