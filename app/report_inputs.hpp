#pragma once
// What `skysim report RUN_DIR` reads beyond the run's files: the panels each service kind of
// the run declares (model registry), filled with its hosts' limits, the timeline's changes with
// their notes (scenario.resolved.yaml) and the phases (summary.json) on the run's clock.
#include <filesystem>

#include "analysis/json.hpp"
#include "analysis/report.hpp"
#include "scenarios/model_registry.hpp"

namespace skysim::app {

// Without scenario.resolved.yaml only the epoch and the phases (the report then draws one panel
// per sampled metric). Throws std::invalid_argument naming the file when one is unreadable.
analysis::RunReportInputs run_report_inputs(const std::filesystem::path& dir,
                                            const analysis::Json& summary,
                                            const scenarios::Registry& registry);

}  // namespace skysim::app
