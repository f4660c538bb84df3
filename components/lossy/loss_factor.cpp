#include "components/lossy/loss_factor.hpp"

namespace lossy {

void throw_zero_reasonable_limit() {
  throw LossyConfigError("lossy: reasonable_limit must be > 0 (0 would drop every write)");
}

}  // namespace lossy
