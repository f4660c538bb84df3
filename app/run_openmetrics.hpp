#pragma once
// OpenMetrics out of a finished run in this process (`skysim run --openmetrics FILE`): the
// series and their types from the metrics registry, the samples from the sampler, written by
// analysis/openmetrics exactly as `skysim openmetrics RUN_DIR` writes them from the files.
#include <string>

#include "analysis/openmetrics.hpp"
#include "scenarios/runner.hpp"

namespace skysim::app {

analysis::SampledRun sampled_run(scenarios::ScenarioRun& run);

// Throws std::runtime_error when `path` cannot be written, std::invalid_argument when the
// series cannot be mapped (analysis::write_openmetrics).
void write_run_openmetrics(scenarios::ScenarioRun& run, const std::string& path);

}  // namespace skysim::app
