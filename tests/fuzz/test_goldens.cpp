// The determinism contract, pinned: every fast scenario's fingerprint for seeds 1..3 must match
// tests/fuzz/goldens.txt, and so must its per-model sub-fingerprints, so a change that alters
// any trajectory fails until the goldens are updated deliberately — and the failure says which
// model's trajectory changed. Update on purpose with tests/fuzz/update_goldens.sh.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

namespace {

const char* const kHeader =
    "# Golden fingerprints: scenario seed fingerprint group=fingerprint... (skysim run FILE --seed "
    "N;\n"
    "# the groups are the per-model sub-fingerprints of summary.json; unseed= is its unseed: stream\n"
    "# draw counts and model folds, docs/fuzzing.md).\n"
    "# A change that alters any trajectory fails test_fuzz until these are updated on purpose:\n"
    "#   bash tests/fuzz/update_goldens.sh build/<dir>/fuzz/test_fuzz\n"
    "# and say in the commit message why the trajectories changed.\n";

struct Golden {
  std::string scenario;
  std::uint64_t seed = 0;
  std::string fingerprint;
  std::map<std::string, std::string> groups;  // empty in an old-format line
};

std::string goldens_path() { return std::string(SKYSIM_SOURCE_DIR) + "/tests/fuzz/goldens.txt"; }

std::vector<Golden> read_goldens() {
  std::ifstream f(goldens_path());
  REQUIRE(f);
  std::vector<Golden> out;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Golden g;
    s >> g.scenario >> g.seed >> g.fingerprint;
    REQUIRE(!g.fingerprint.empty());
    for (std::string kv; s >> kv;) {
      auto eq = kv.find('=');
      REQUIRE(eq != std::string::npos);
      g.groups[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    out.push_back(g);
  }
  return out;
}

skysim::scenarios::RunResult run_golden(const Golden& g) {
  skysim::scenarios::LoadOptions opts;
  opts.seed = g.seed;
  auto s = skysim::scenarios::load_scenario_file(std::string(SKYSIM_SOURCE_DIR) + "/" + g.scenario,
                                                 skysim::scenarios::builtin_registry(), opts);
  skysim::scenarios::ScenarioRun run(s, skysim::scenarios::builtin_registry());
  return run.run();
}

}  // namespace

TEST_CASE("fast scenarios reproduce their golden fingerprints model by model") {
  using skysim::scenarios::format_fingerprint;
  auto goldens = read_goldens();
  REQUIRE(goldens.size() >= 15);
  const bool update = std::getenv("SKYSIM_UPDATE_GOLDENS") != nullptr;
  std::ostringstream fresh;
  fresh << kHeader;
  for (const auto& g : goldens) {
    auto r = run_golden(g);
    std::string fp = format_fingerprint(r.fingerprint);
    fresh << g.scenario << " " << g.seed << " " << fp;
    std::map<std::string, std::string> got;
    for (const auto& [group, f] : r.sub_fingerprints) {
      got[group] = format_fingerprint(f);
      fresh << " " << group << "=" << got[group];
    }
    // The unseed rides along as one more group: a payload change that keeps every event in
    // place fails here, with the fingerprint and every sub-fingerprint unchanged.
    got["unseed"] = format_fingerprint(r.unseed);
    fresh << " unseed=" << got["unseed"];
    fresh << "\n";
    if (update) continue;
    std::string changed;
    for (const auto& [group, want] : g.groups) {
      auto it = got.find(group);
      if (it == got.end() || it->second != want) changed += " " + group;
    }
    for (const auto& [group, f] : got) {
      if (!g.groups.count(group)) changed += " " + group + "(new)";
    }
    INFO(g.scenario << " seed " << g.seed << ": got " << fp << "; models whose trajectory "
                    << "changed:" << (changed.empty() ? " none" : changed)
                    << " (if the change is meant, run tests/fuzz/update_goldens.sh and note why "
                    << "in the commit)");
    CHECK(fp == g.fingerprint);
    CHECK(!g.groups.empty());
    CHECK(changed.empty());
  }
  if (update) {
    std::ofstream out(goldens_path());
    out << fresh.str();
    REQUIRE(out);
    WARN("rewrote " << goldens_path());
  }
}

TEST_CASE("sub-fingerprints split the run by model and change only where the model changed") {
  // Two seeds of the demo differ in every model's trajectory; the same seed twice in none.
  Golden a{"scenarios/demo.yaml", 1, "", {}};
  Golden b{"scenarios/demo.yaml", 2, "", {}};
  auto r1 = run_golden(a), r1again = run_golden(a), r2 = run_golden(b);
  REQUIRE(r1.sub_fingerprints.size() >= 3);  // source, queue-server, timeline, metrics
  CHECK(r1.sub_fingerprints == r1again.sub_fingerprints);
  std::map<std::string, std::uint64_t> m1(r1.sub_fingerprints.begin(), r1.sub_fingerprints.end());
  std::map<std::string, std::uint64_t> m2(r2.sub_fingerprints.begin(), r2.sub_fingerprints.end());
  REQUIRE(m1.count("source"));
  REQUIRE(m1.count("queue-server"));
  REQUIRE(m1.count("timeline"));
  CHECK(m1["source"] != m2["source"]);
  CHECK(m1["queue-server"] != m2["queue-server"]);
  // The timeline fires at the same instants whatever the seed: its trajectory is the same.
  CHECK(m1["timeline"] == m2["timeline"]);
}
