#pragma once
// Loads, overrides and validates a scenario; reports every problem in one pass.
//
// Path grammar (shared by the validator's messages, --set and timeline `set:`): keys joined by
// dots, a sequence element by its index: `datacenters.east.services.web.params.workers`,
// `sources.readers.rate`, `timeline.0.at`. Names of datacenters, services and sources are
// restricted to [A-Za-z0-9_-] so a path is never ambiguous.
#include <string>
#include <vector>

#include "scenarios/model_registry.hpp"
#include "scenarios/scenario.hpp"

namespace skysim::scenarios {

struct Override {
  std::string path;
  std::string value;  // YAML text: "50", "2ms", "{constant: 5ms}"
};

// "a.b.c=value" -> Override; throws ScenarioError on a missing '='.
Override parse_override(const std::string& text);

struct LoadOptions {
  std::vector<Override> overrides;
  std::optional<std::uint64_t> seed;  // replaces the file's seed
};

// Throws ScenarioError with every diagnostic found (YAML syntax errors stop at the first).
Scenario load_scenario_text(const std::string& text, const std::string& file_name,
                            const Registry& registry, const LoadOptions& options = {});
Scenario load_scenario_file(const std::string& path, const Registry& registry,
                            const LoadOptions& options = {});

// The resolved document as YAML text (what scenario.resolved.yaml holds).
std::string resolved_yaml(const Scenario& s);

// 16 hex digits of XXH64 over the resolved document without its seed: equal for two runs of the
// same scenario and overrides whatever their seeds and file paths, different otherwise.
std::string scenario_hash(const Scenario& s);

}  // namespace skysim::scenarios
