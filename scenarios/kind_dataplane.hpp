#pragma once
// The `dataplane` service kind (models/dataplane wired into scenarios).
#include "scenarios/model_registry.hpp"

namespace skysim::scenarios {

ServiceKind dataplane_kind();

}  // namespace skysim::scenarios
