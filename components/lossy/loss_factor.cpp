#include "components/lossy/loss_factor.hpp"

#include <algorithm>

namespace lossy {

double loss_factor(std::uint64_t reasonable_limit, std::uint64_t num_follows) {
  if (reasonable_limit == 0) {
    throw LossyConfigError("lossy: reasonable_limit must be > 0 (0 would drop every write)");
  }
  if (num_follows <= reasonable_limit) {
    return 1.0;  // also covers num_follows == 0: nothing to limit
  }
  return std::min(static_cast<double>(reasonable_limit) / static_cast<double>(num_follows), 1.0);
}

}  // namespace lossy
