#pragma once
// Bluesky's lossy-timelines rule (domain.md §8.3, seeds/uid-interning-and-lossy-timelines.en.txt):
//   loss_factor = min(reasonable_limit / num_follows, 1)
// Just before a page of fan-out is written, one r in [0,1) is drawn; every user of the page
// whose loss_factor < r is skipped. Each user is thus written with probability loss_factor,
// and the drops inside one page are correlated (one r for the whole page).
#include <cstdint>
#include <stdexcept>

namespace lossy {

using UserId = std::uint32_t;

class LossyConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws LossyConfigError if reasonable_limit is 0 (every timeline would be dropped).
double loss_factor(std::uint64_t reasonable_limit, std::uint64_t num_follows);

// The per-page decision: keep the user iff !(loss_factor < r).
inline bool keep_in_page(double user_loss_factor, double page_r) {
  return !(user_loss_factor < page_r);
}

}  // namespace lossy
