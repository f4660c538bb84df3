#pragma once
// Shared helpers for the scenario tests: a small valid scenario and a way to break it.
#include <string>

#include "scenarios/loader.hpp"

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

}  // namespace skysim::scenarios::testing
