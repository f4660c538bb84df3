#pragma once
// Shared helpers for the scenario tests: a small valid scenario and a way to break it.
#include <memory>
#include <string>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

namespace skysim::scenarios::testing {

inline const char* kValidScenario = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 1m
datacenters:
  east:
    services:
      web:
        kind: queue-server
        hosts: 2
        params:
          workers: 4
          service_time: {exponential: {mean: 5ms}}
sources:
  r:
    from: east
    target: web.serve
    rate: 100/s
)";

// kValidScenario with the first occurrence of `from` replaced by `to` (must be present).
inline std::string with(const std::string& from, const std::string& to,
                        std::string base = kValidScenario) {
  auto at = base.find(from);
  if (at == std::string::npos) throw std::logic_error("fixture has no '" + from + "'");
  return base.replace(at, from.size(), to);
}

// "OK" or every diagnostic, one per line.
inline std::string errors_of(const std::string& text, const LoadOptions& opts = {}) {
  try {
    load_scenario_text(text, "t.yaml", builtin_registry(), opts);
    return "OK";
  } catch (const ScenarioError& e) {
    return e.what();
  }
}

// A scenario text loaded and run to its end, kept so its metrics can be read.
struct TextRun {
  std::unique_ptr<Scenario> scenario;
  std::unique_ptr<ScenarioRun> run;
  RunResult result;
  double value(const std::string& key) const {
    return run->metrics().contains(key) ? run->metrics().value(key) : 0.0;
  }
};

inline TextRun run_scenario_text(const std::string& text, LoadOptions o = {}) {
  TextRun r;
  r.scenario = std::make_unique<Scenario>(load_scenario_text(text, "t.yaml", builtin_registry(), o));
  r.run = std::make_unique<ScenarioRun>(*r.scenario, builtin_registry());
  r.result = r.run->run();
  return r;
}

// The error building the world of TEXT throws (one the loader cannot see, as a cluster's
// partitions against its graph), or "built".
inline std::string build_error(const std::string& text) {
  try {
    Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
    ScenarioRun run(s, builtin_registry());
    return "built";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace skysim::scenarios::testing
