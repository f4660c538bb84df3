#include "validation/published_checks.hpp"

namespace skysim::validation {

std::vector<DirectCheck> published_checks() { return {}; }

}  // namespace skysim::validation
