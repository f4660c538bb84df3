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
  explicit KeepBound(std::size_t users) : mean_(users, 0), variance_(users, 0), kept_(users, 0) {}
  // u was addressed by a page that keeps it with probability q.
  void addressed(std::uint32_t u, double q) {
    mean_[u] += q;
    variance_[u] += q * (1 - q);
  }
  void kept(std::uint32_t u) { ++kept_[u]; }
  // "" or the first user kept less often than the bound allows.
  std::string check() const {
    for (std::size_t u = 0; u < kept_.size(); ++u) {
      double floor = mean_[u] - kZ * std::sqrt(variance_[u]) - 1;
      if (static_cast<double>(kept_[u]) < floor) {
        return "user " + std::to_string(u) + " kept " + std::to_string(kept_[u]) +
               " times, expected " + std::to_string(mean_[u]) + " (6 sd below: " +
               std::to_string(floor) + ")";
      }
    }
    return "";
  }

 private:
  static constexpr double kZ = 6;
  std::vector<double> mean_;
  std::vector<double> variance_;
  std::vector<std::uint32_t> kept_;
};

}  // namespace fanout
