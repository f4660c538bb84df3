// The determinism contract, pinned: every fast scenario's fingerprint for seeds 1..3 must match
// tests/fuzz/goldens.txt, so a change that alters any trajectory fails until the goldens are
// updated deliberately (the file's header says how).
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

namespace {

struct Golden {
  std::string scenario;
  std::uint64_t seed = 0;
  std::string fingerprint;
};

std::vector<Golden> read_goldens() {
  std::ifstream f(std::string(SKYSIM_SOURCE_DIR) + "/tests/fuzz/goldens.txt");
  REQUIRE(f);
  std::vector<Golden> out;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Golden g;
    s >> g.scenario >> g.seed >> g.fingerprint;
    REQUIRE(!g.fingerprint.empty());
    out.push_back(g);
  }
  return out;
}

}  // namespace

TEST_CASE("fast scenarios reproduce their golden fingerprints") {
  auto goldens = read_goldens();
  REQUIRE(goldens.size() >= 15);
  for (const auto& g : goldens) {
    skysim::scenarios::LoadOptions opts;
    opts.seed = g.seed;
    auto s =
        skysim::scenarios::load_scenario_file(std::string(SKYSIM_SOURCE_DIR) + "/" + g.scenario,
                                              skysim::scenarios::builtin_registry(), opts);
    skysim::scenarios::ScenarioRun run(s, skysim::scenarios::builtin_registry());
    auto fp = skysim::scenarios::format_fingerprint(run.run().fingerprint);
    INFO(g.scenario << " seed " << g.seed << ": got " << fp << " (if the change is meant, run "
                    << "tests/fuzz/update_goldens.sh and note why in the commit)");
    CHECK(fp == g.fingerprint);
  }
}
