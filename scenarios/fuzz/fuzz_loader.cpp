// libFuzzer harness for the scenario loader and validator (scripts/fuzz-loader.sh builds it).
// Any input must end in a loaded scenario or a ScenarioError — never a crash, a hang, an ASan
// report or another exception type.
#include <cstddef>
#include <cstdint>
#include <string>

#include "scenarios/fuzz/load_twice.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/queue_server.hpp"

namespace {
// Only the demo kind: the harness exercises the loader and validator, and linking every model
// into a sanitizer build outside CMake is not worth it (the validator's per-kind logic is
// generic over ParamSpec). The test suite replays this corpus with every kind registered
// (tests/scenarios/test_loader_corpus.cpp), which covers the kinds' own checks.
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
  skysim::scenarios::fuzzing::load_twice(
      std::string(reinterpret_cast<const char*>(data), size), registry());
  return 0;
}
