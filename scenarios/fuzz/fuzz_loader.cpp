// libFuzzer harness for the scenario loader and validator (scripts/fuzz-loader.sh builds it).
// Any input must end in a loaded scenario or a ScenarioError — never a crash, a hang, an ASan
// report or another exception type.
#include <cstddef>
#include <cstdint>
#include <string>

#include "scenarios/loader.hpp"
#include "scenarios/queue_server.hpp"

namespace {
// Only the demo kind: the harness exercises the loader and validator, and linking every model
// into a sanitizer build outside CMake is not worth it (the validator's per-kind logic is
// generic over ParamSpec).
const skysim::scenarios::Registry& registry() {
  static const skysim::scenarios::Registry r = [] {
    skysim::scenarios::Registry x;
    x.add(skysim::scenarios::queue_server_kind());
    return x;
  }();
  return r;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto s = skysim::scenarios::load_scenario_text(text, "fuzz.yaml", registry());
    // A loaded scenario must print back to YAML that loads again.
    skysim::scenarios::load_scenario_text(skysim::scenarios::resolved_yaml(s), "resolved.yaml",
                                          registry());
  } catch (const skysim::scenarios::ScenarioError&) {
  }
  return 0;
}
