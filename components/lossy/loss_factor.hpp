#pragma once
// Bluesky's lossy-timelines rule (domain.md §8.3, seeds/uid-interning-and-lossy-timelines.en.txt):
//   loss_factor = min(reasonable_limit / num_follows, 1)
// Just before a page of fan-out is written, one r in [0,1) is drawn; every user of the page
// whose loss_factor < r is skipped. Each user is thus written with probability loss_factor,
// and the drops inside one page are correlated (one r for the whole page).
#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace lossy {

using UserId = std::uint32_t;

class LossyConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

[[noreturn]] void throw_zero_reasonable_limit();

// Throws LossyConfigError if reasonable_limit is 0 (every timeline would be dropped). Inline:
// the fan-out asks it several times per addressed follower.
inline double loss_factor(std::uint64_t reasonable_limit, std::uint64_t num_follows) {
  if (reasonable_limit == 0) {
    throw_zero_reasonable_limit();
  }
  if (num_follows <= reasonable_limit) {
    return 1.0;  // also covers num_follows == 0: nothing to limit
  }
  return std::min(static_cast<double>(reasonable_limit) / static_cast<double>(num_follows), 1.0);
}

// The per-page decision: keep the user iff !(loss_factor < r).
inline bool keep_in_page(double user_loss_factor, double page_r) {
  return !(user_loss_factor < page_r);
}

}  // namespace lossy
