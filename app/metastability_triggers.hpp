#pragma once
// Where a run's trigger began and when it was removed, read from its scenario, for
// `skysim report --metastability RUN_DIR` (the analysis itself is analysis/metastability.hpp).
#include <optional>
#include <string>
#include <vector>

#include "analysis/metastability.hpp"
#include "scenarios/scenario.hpp"

namespace skysim::app {

// Triggers the scenario removes by itself, by start time: a source with a stop time (its start
// to its stop), a source the timeline stops, a crash followed by a restart of the same host (a
// fault with a duration). Each one's baseline starts at the last scenario change (timeline entry,
// source start or stop) before it, and its horizon is the first change after its end.
std::vector<analysis::Trigger> scenario_triggers(const scenarios::Scenario& s);

// With --trigger-end (and optionally --trigger-start), as ns since the epoch: one trigger.
// Without a start, it is the latest source start (> 0) before the end; none -> throws
// std::invalid_argument asking for --trigger-start.
analysis::Trigger explicit_trigger(const scenarios::Scenario& s, sim::Time end,
                                   std::optional<sim::Time> start);

}  // namespace skysim::app
