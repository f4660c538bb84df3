// restart_policy from YAML to the Go process: a data-plane host crashed by the timeline four
// times, each within its back-off window, restarts after 0, 10, 20, 40 s under
// crash_loop_backoff (the kubelet's, docs/models/goruntime.md "Restarts"), and after its fixed
// restart_delay otherwise.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "scenario_fixtures.hpp"

using namespace skysim;
using namespace skysim::scenarios;

namespace {

std::string fuzz_dataplane_with(const std::string& restart_line) {
  std::ifstream f(std::string(SKYSIM_SOURCE_DIR) + "/scenarios/fuzz/dataplane.yaml");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  const std::string old = "restart_delay: 5s";
  text.replace(text.find(old), old.size(), restart_line);
  text.replace(text.find("duration: 20s"), 13, "duration: 300s");
  // Four crashes, each a few seconds after the previous restart at the latest back-off.
  text += "timeline:\n"
          "  - at: +5s\n    crash: [east/dataplane/0]\n"
          "  - at: +15s\n    crash: [east/dataplane/0]\n"
          "  - at: +40s\n    crash: [east/dataplane/0]\n"
          "  - at: +80s\n    crash: [east/dataplane/0]\n";
  return text;
}

std::vector<std::string> restarts(const std::string& restart_line) {
  Scenario sc = load_scenario_text(fuzz_dataplane_with(restart_line), "restart-policy.yaml",
                                   builtin_registry());
  ScenarioRun run(sc, builtin_registry());
  run.run();
  std::vector<std::string> out;
  for (const auto& [host, p] : run.phases()) {
    if (p.what.rfind("process restarted", 0) == 0) out.push_back(p.what.substr(0, 60));
  }
  return out;
}

}  // namespace

TEST_CASE("restart_policy crash_loop_backoff in YAML restarts after 0, 10, 20, 40 s") {
  auto r = restarts("restart_policy: crash_loop_backoff");
  REQUIRE(r.size() == 4);
  CHECK(r[0].find("CrashLoopBackOff of 0 s") != std::string::npos);
  CHECK(r[1].find("CrashLoopBackOff of 10 s") != std::string::npos);
  CHECK(r[2].find("CrashLoopBackOff of 20 s") != std::string::npos);
  CHECK(r[3].find("CrashLoopBackOff of 40 s") != std::string::npos);
}

TEST_CASE("restart_policy fixed (the default) keeps restart_delay and says nothing of a back-off") {
  auto r = restarts("restart_delay: 5s");
  REQUIRE(r.size() == 4);
  for (const auto& line : r) CHECK(line.find("CrashLoopBackOff") == std::string::npos);
}

TEST_CASE("a back-off cap below its start is one located error from the loader, not a failed run") {
  const std::string text =
      fuzz_dataplane_with("restart_policy: crash_loop_backoff\n          restart_backoff_max: 5s");
  const std::string errors = testing::errors_of(text);
  INFO(errors);
  // The line of the key in the file, the key's path, and the model's own words.
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(
                                                                 text.find("restart_backoff_max")),
                               '\n') + 1;
  CHECK(errors.find(":" + std::to_string(line) + ":") != std::string::npos);
  CHECK(errors.find("params.restart_backoff_max: restart_backoff_max: must be >= "
                    "restart_backoff_initial") != std::string::npos);
  CHECK(std::count(errors.begin(), errors.end(), '\n') <= 1);  // one error for the service
  // And values that agree load: the cap equal to the start is allowed.
  CHECK(testing::errors_of(fuzz_dataplane_with(
            "restart_policy: crash_loop_backoff\n          restart_backoff_max: 10s")) == "OK");
}
