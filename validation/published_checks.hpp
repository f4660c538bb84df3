#pragma once
// The published figures (seeds and domain.md) recomputed by the models that claim them.
#include <vector>

#include "validation/check.hpp"

namespace skysim::validation {

std::vector<DirectCheck> published_checks();

}  // namespace skysim::validation
