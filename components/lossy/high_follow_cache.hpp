#pragma once
// The in-memory copy of the "high-follow accounts" sorted set that every fan-out instance
// reloads every 30 s (domain.md §8.3): looking follow counts up in the primary database
// would add > 1M reads/s. Accounts absent from the snapshot are below the limit (inference,
// domain.md §8.3) and get loss_factor 1. Lookups are O(log n) on a sorted vector: no hash
// iteration, identical on every platform.
//
// A load builds a new immutable FollowSnapshot and swaps it in atomically, so readers on other
// threads (the fan-out's workers, beside backends/redis's refresh thread) see the old set or the
// new one, never a half-loaded one; a reader that holds snapshot() keeps its set for a whole page.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "components/lossy/loss_factor.hpp"

namespace lossy {

struct FollowCountEntry {
  UserId user = 0;
  std::uint64_t follows = 0;
};

// One loaded set, never changed after build().
class FollowSnapshot {
 public:
  // Entries in any order; a duplicate user is a LossyConfigError.
  static std::shared_ptr<const FollowSnapshot> build(std::vector<FollowCountEntry> entries,
                                                     std::int64_t loaded_at_ns);
  // 0 when the user is not in the set.
  std::uint64_t follows(UserId u) const;
  std::size_t size() const { return entries_.size(); }
  std::int64_t loaded_at_ns() const { return loaded_at_ns_; }
  const std::vector<FollowCountEntry>& entries() const { return entries_; }  // sorted by user

 private:
  FollowSnapshot(std::vector<FollowCountEntry> entries, std::int64_t loaded_at_ns)
      : entries_(std::move(entries)), loaded_at_ns_(loaded_at_ns) {}
  std::vector<FollowCountEntry> entries_;
  std::int64_t loaded_at_ns_;
};

class HighFollowCache {
 public:
  explicit HighFollowCache(std::uint64_t reasonable_limit);
  HighFollowCache(const HighFollowCache&) = delete;
  HighFollowCache& operator=(const HighFollowCache&) = delete;

  // Builds a snapshot of `entries` and publishes it (a duplicate user is an error, and then the
  // old snapshot stays).
  void load(std::vector<FollowCountEntry> entries, std::int64_t loaded_at_ns);
  void publish(std::shared_ptr<const FollowSnapshot> snapshot);
  // The current set, whole; safe beside a concurrent load.
  std::shared_ptr<const FollowSnapshot> snapshot() const;

  // 0 when the user is not in the snapshot (below the limit as far as this instance knows).
  std::uint64_t follows(UserId u) const { return snapshot()->follows(u); }
  double loss_factor_of(UserId u) const;

  std::uint64_t reasonable_limit() const { return limit_; }
  std::size_t size() const { return snapshot()->size(); }
  std::int64_t loaded_at_ns() const { return snapshot()->loaded_at_ns(); }
  std::uint64_t loads() const { return loads_.load(); }

 private:
  std::uint64_t limit_;
  // A mutex held only to copy or swap the pointer: libstdc++ 12's
  // std::atomic<std::shared_ptr> is lock-free-looking but ThreadSanitizer reports its internal
  // swap as a race (measured), and a race report must mean a real race here.
  mutable std::mutex mu_;
  std::shared_ptr<const FollowSnapshot> current_;
  std::atomic<std::uint64_t> loads_{0};
};

// Filters one page of followers in place order: kept users are appended to `out`.
// `page_r` must be the single draw in [0,1) made just before writing this page.
void filter_page(const HighFollowCache& cache, const UserId* page, std::size_t n, double page_r,
                 std::vector<UserId>& out);

}  // namespace lossy
