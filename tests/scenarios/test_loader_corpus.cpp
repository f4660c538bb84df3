// The loader fuzzer's corpus (scenarios/fuzz/corpus/, docs/fuzzing-the-loader.md) replayed in
// the suite with every kind registered, the same registry (builtin_registry()) the libFuzzer
// harness uses, so each kind's own parameter checks (ParamSpec ranges, check_config) meet the
// corpus's odd inputs here too; the sanitizer pass runs it under ASan+UBSan. Every input must end in a
// scenario that prints back and loads again, or in a ScenarioError: any other exception fails.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/fuzz/load_twice.hpp"
#include "scenarios/loader.hpp"

using namespace skysim::scenarios;

TEST_CASE("every input of the loader fuzzer's corpus loads or is rejected, with every kind") {
  const std::filesystem::path dir = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/fuzz/corpus";
  REQUIRE(std::filesystem::is_directory(dir));
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 100);  // the minimised corpus has ~500; an empty glob must fail

  int loaded = 0;
  std::set<std::string> kinds_loaded;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    INFO(f.filename().string());
    bool ok = false;
    REQUIRE_NOTHROW(ok = fuzzing::load_twice(ss.str(), builtin_registry()));
    if (!ok) continue;
    ++loaded;
    for (const auto& dc : load_scenario_text(ss.str(), "corpus.yaml", builtin_registry())
                              .datacenters) {
      for (const auto& s : dc.services) kinds_loaded.insert(s.kind);
    }
  }
  CHECK(loaded >= 4);
  // Each kind reaches its own checks from at least one valid input (kind-*.yaml are the fuzz
  // bases of scenarios/fuzz/).
  for (const auto& k : builtin_registry().names()) {
    INFO("no corpus input loads a service of kind " << k);
    CHECK(kinds_loaded.count(k) == 1);
  }
}
