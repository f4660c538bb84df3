// libFuzzer harness for the scenario loader and validator (scripts/fuzz-loader.sh builds it).
// Any input must end in a loaded scenario or a ScenarioError — never a crash, a hang, an ASan
// report or another exception type.
#include <cstddef>
#include <cstdint>
#include <string>

#include "scenarios/fuzz/load_twice.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/model_registry.hpp"

// Every kind the project ships (scenarios/builtin_models.cpp), the registry the corpus replay
// (tests/scenarios/test_loader_corpus.cpp) and `skysim run` use: each kind's own checks of its
// parameters, fault hooks and endpoints are fuzzed too. scripts/fuzz-loader.sh links every
// model for it.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  skysim::scenarios::fuzzing::load_twice(
      std::string(reinterpret_cast<const char*>(data), size),
      skysim::scenarios::builtin_registry());
  return 0;
}
