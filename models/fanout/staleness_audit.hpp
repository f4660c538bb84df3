#pragma once
// A page decision audited against the true follow counts of the instant it is made (docs/
// fanout.md, "The graph during a run"): a decorator over the filter that decides, which lets it
// decide and counts, per user class, the decisions whose loss factor came from a cached count
// whose factor differs from the true count's -- and of the rows kept, those. A FanoutService's
// FollowGrowth audits its service's decisions with one; a composition's lossy_filter step and
// fanout-fleet each audit their own instance's (models/fanout/instance_filter.hpp).
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "components/lossy/high_follow_cache.hpp"
#include "components/lossy/page_filter.hpp"
#include "models/social/follow_graph.hpp"

namespace fanout {

enum class UserClass : std::uint8_t { Ordinary = 0, Heavy = 1, Grower = 2 };
inline constexpr std::size_t kUserClasses = 3;

// Per user class: page-filter decisions and rows kept, and of them those whose loss factor
// came from a cached count whose factor differs from the true count's at that instant.
struct StalenessCounts {
  std::uint64_t decisions = 0;
  std::uint64_t stale_decisions = 0;
  std::uint64_t kept = 0;
  std::uint64_t stale_kept = 0;
  // Sum over decisions of |cached factor - true factor|: how far off, not only whether.
  double factor_error = 0;
};

// The true count and the class of a user now (FollowGrowth).
class FollowTruth {
 public:
  virtual ~FollowTruth() = default;
  virtual std::uint64_t true_follows(social::UserId u) const = 0;
  virtual UserClass user_class(social::UserId u) const = 0;
};

class StalenessAudit final : public lossy::PageFilter {
 public:
  using Snapshot = std::function<std::shared_ptr<const lossy::FollowSnapshot>()>;
  // `inner` decides; `snapshot` is the set it reads now; both and `truth` must outlive this.
  StalenessAudit(const lossy::PageFilter& inner, Snapshot snapshot, const FollowTruth& truth,
                 std::uint64_t reasonable_limit)
      : inner_(inner), snapshot_(std::move(snapshot)), truth_(truth), limit_(reasonable_limit) {}

  void filter(const social::UserId* page, std::size_t n, double page_r,
              std::vector<social::UserId>& out) const override;
  double keep_probability(social::UserId u) const override { return inner_.keep_probability(u); }
  void keep_probabilities(const social::UserId* page, std::size_t n,
                          double* out) const override {
    inner_.keep_probabilities(page, n, out);
  }
  const StalenessCounts& staleness(UserClass c) const {
    return counts_[static_cast<std::size_t>(c)];
  }

 private:
  const lossy::PageFilter& inner_;
  Snapshot snapshot_;
  const FollowTruth& truth_;
  std::uint64_t limit_;
  mutable std::array<StalenessCounts, kUserClasses> counts_{};
};

}  // namespace fanout
