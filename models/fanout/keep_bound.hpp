#pragma once
// The fan-out's lower bound (issue 25 item 1): under the lossy policy each page draws one r and
// keeps a user with probability loss_factor (components/lossy/loss_factor.hpp), one draw per
// page, so over the pages that addressed user u the number kept is a sum of independent
// Bernoulli(q_i) — mean sum q_i, variance sum q_i (1 - q_i). Keeping fewer than
// mean - 6 sd - 1 has probability below ~1e-9 per user (normal approximation; the "- 1" covers
// the discreteness when the mean is small): a filter that drops more than its loss factor says
// is caught. (Within one page the keeps of different users share r, so only per-user sums are
// binomial, not page or run totals.) Delivered rows are the kept ones minus write timeouts,
// which the service counts on their own.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace fanout {

class KeepBound {
 public:
  explicit KeepBound(std::size_t users)
      : mean_(users, 0), variance_(users, 0), kept_(users, 0), dirty_(users, 0), low_(users, 0) {}
  // u was addressed by a page that keeps it with probability q.
  void addressed(std::uint32_t u, double q) {
    mean_[u] += q;
    variance_[u] += q * (1 - q);
    touch(u);
  }
  void kept(std::uint32_t u) {
    ++kept_[u];
    touch(u);
  }
  // "" or the first user (lowest id) kept less often than the bound allows. Incremental: only
  // the users addressed or kept since the last check are looked at again (a user nobody touched
  // keeps the verdict it had), so a check costs O(users changed), not O(users); the verdict and
  // the message are those of a walk over every user (test_keep_bound.cpp compares the two).
  std::string check() {
    for (std::uint32_t u : touched_) {
      dirty_[u] = 0;
      const bool low = below(u);
      if (low != (low_[u] != 0)) {
        low_[u] = low ? 1 : 0;
        low ? ++lows_ : --lows_;
      }
    }
    touched_.clear();
    if (lows_ == 0) return "";
    for (std::uint32_t u = 0; u < low_.size(); ++u) {  // only on a violation
      if (low_[u]) return message(u);
    }
    return "";
  }

 private:
  static constexpr double kZ = 6;
  double floor(std::uint32_t u) const { return mean_[u] - kZ * std::sqrt(variance_[u]) - 1; }
  bool below(std::uint32_t u) const { return static_cast<double>(kept_[u]) < floor(u); }
  std::string message(std::uint32_t u) const {
    return "user " + std::to_string(u) + " kept " + std::to_string(kept_[u]) +
           " times, expected " + std::to_string(mean_[u]) + " (6 sd below: " +
           std::to_string(floor(u)) + ")";
  }
  void touch(std::uint32_t u) {
    if (dirty_[u]) return;
    dirty_[u] = 1;
    touched_.push_back(u);
  }
  std::vector<double> mean_;
  std::vector<double> variance_;
  std::vector<std::uint32_t> kept_;
  std::vector<std::uint8_t> dirty_;  // in touched_
  std::vector<std::uint8_t> low_;    // below the bound at the last check
  std::vector<std::uint32_t> touched_;
  std::size_t lows_ = 0;  // users with low_ set
};

}  // namespace fanout
