#pragma once
// The April 2026 post-mortem's figures recomputed by the replay itself
// (scenarios/april-2026-outage.yaml, a composition of the models): healthy OS threads, their Monday surge,
// the crash cadence, and restarts into TIME_WAIT.
#include "validation/check.hpp"
#include "validation/selftest.hpp"

namespace skysim::validation {

// Throws the loader's ScenarioError if the April scenario cannot be read.
FigureChecks april_checks(const SelftestOptions& options);

}  // namespace skysim::validation
