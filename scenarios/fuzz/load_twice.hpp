#pragma once
// What the loader must do with any text, shared by the libFuzzer harness (fuzz_loader.cpp) and
// the corpus replay in the test suite (tests/scenarios/test_loader_corpus.cpp): end in a loaded
// scenario whose printed form loads again, or in a ScenarioError. Any other exception escapes
// to the caller, which treats it as a finding.
#include <string>

#include "scenarios/loader.hpp"

namespace skysim::scenarios::fuzzing {

// true = loaded (and reloaded from its resolved YAML), false = rejected with diagnostics.
inline bool load_twice(const std::string& text, const Registry& registry) {
  try {
    auto s = load_scenario_text(text, "fuzz.yaml", registry);
    load_scenario_text(resolved_yaml(s), "resolved.yaml", registry);
    return true;
  } catch (const ScenarioError&) {
    return false;
  }
}

}  // namespace skysim::scenarios::fuzzing
