// Probes that mean something: a probe counts only when the run's faults caused its evidence —
// its counter above the same seed's run without them — never because the base scenario already
// does it. The demo crashes a host by itself (at 7 min), dropping requests with no fault drawn.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/perturbation.hpp"
#include "fuzz/probes.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

using namespace skysim;

namespace {

// Runs `p` over its base and returns the run's summary.json.
analysis::Json run_summary(const scenarios::Scenario& base, const fuzz::Perturbation& p,
                           const std::string& name) {
  scenarios::Scenario s = scenarios::load_scenario_text(fuzz::perturbed_yaml(base, p), name,
                                                        scenarios::builtin_registry());
  scenarios::ScenarioRun run(s, scenarios::builtin_registry());
  scenarios::RunResult r = run.run();
  std::string dir = (std::filesystem::temp_directory_path() / ("skysim-probes-" + name)).string();
  run.write_outputs(dir, r, 0);
  std::ifstream f(dir + "/summary.json");
  std::stringstream text;
  text << f.rdbuf();
  std::filesystem::remove_all(dir);
  return analysis::Json::parse(text.str());
}

const fuzz::ProbeSpec& spec(const std::string& name) {
  for (const auto& s : fuzz::probe_specs()) {
    if (s.name == name) return s;
  }
  FAIL("no probe " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("a base that crashes by itself does not make the crash probes fire") {
  auto base = scenarios::load_scenario_file(std::string(SKYSIM_SOURCE_DIR) + "/scenarios/demo.yaml",
                                            scenarios::builtin_registry());
  fuzz::Perturbation none = fuzz::draw_perturbation(base, 5);
  none.faults.clear();
  analysis::Json plain = run_summary(base, none, "plain");
  // The base alone drops requests (its own crash): the evidence is there without any fault...
  REQUIRE(fuzz::metric_total(plain, "queue.dropped") > 0);
  auto reached = fuzz::probes_reached(none, plain);
  CHECK(std::find(reached.begin(), reached.end(), "crash dropped requests") != reached.end());
  // ...so against its own baseline (the same run) it is not caused by a fault.
  CHECK_FALSE(fuzz::caused_by_faults(spec("crash dropped requests"), plain, plain));

  // One injected crash of a busy host at 2.5 min (inside the batch window) drops more.
  fuzz::Perturbation crash = none;
  fuzz::Fault f;
  f.kind = fuzz::FaultKind::Crash;
  f.target = "east/web/1";
  f.at = 150 * sim::kSecond;
  f.length = 20 * sim::kSecond;
  crash.faults.push_back(f);
  analysis::Json crashed = run_summary(base, crash, "crashed");
  CHECK(fuzz::caused_by_faults(spec("crash dropped requests"), crashed, plain));
  CHECK(fuzz::caused_by_faults(spec("crash injected"), crashed, plain));
  CHECK_FALSE(fuzz::caused_by_faults(spec("crash injected"), plain, plain));
  // A knob-only probe (a burst is the fault itself) needs no baseline.
  CHECK(fuzz::caused_by_faults(spec("burst"), plain, plain));
}
