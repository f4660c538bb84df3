#pragma once
// `--until DATE|OFFSET` (run, compare): where a run stops, checked against the scenario's span
// before anything runs.
#include <string>

#include "scenarios/scenario.hpp"
#include "sim/time.hpp"

namespace skysim::app {

// Simulated time since the scenario's epoch; throws UsageError naming the option.
sim::Time parse_until(const scenarios::Scenario& scenario, const std::string& text);

}  // namespace skysim::app
