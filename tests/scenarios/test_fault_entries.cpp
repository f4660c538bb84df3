// Every fault kind the fuzzer has is a `faults:` entry a user can write: it loads into the same
// timeline a hand-written `set:` window gives (same run, same fingerprint), and each bad entry
// gets one located error.
#include <catch2/catch.hpp>

#include "scenario_fixtures.hpp"
#include "scenarios/fault_kinds.hpp"
#include "scenarios/runner.hpp"

using namespace skysim;
using namespace skysim::scenarios;
using namespace skysim::scenarios::testing;

namespace {

std::string with_faults(const std::string& entries) {
  return std::string(kValidScenario) + "faults:\n" + entries;
}

std::uint64_t fingerprint_of(const std::string& text) {
  Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
  ScenarioRun run(s, builtin_registry());
  return run.run().fingerprint;
}

}  // namespace

TEST_CASE("a window fault is the set-then-restore timeline it stands for") {
  std::string as_fault = with_faults(
      "  - {type: delay-spike, at: +10s, duration: 5s, target: east/web/1, strength: 300ms}\n"
      "  - {type: clog, at: +20s, duration: 2s, target: east/web}\n"
      "  - {type: gc-pause, at: +30s, duration: 500ms, target: east/web/0}\n");
  std::string base = "datacenters.east.services.web.host_overrides.";
  std::string as_timeline = std::string(kValidScenario) + "timeline:\n" +
                            "  - {at: +10s, set: {" + base + "1.link_delay: 300ms}}\n" +
                            "  - {at: +15s, set: {" + base + "1.link_delay: 0s}}\n" +
                            "  - {at: +20s, set: {" + base + "0.link_clogged: true, " + base +
                            "1.link_clogged: true}}\n" +
                            "  - {at: +22s, set: {" + base + "0.link_clogged: false, " + base +
                            "1.link_clogged: false}}\n" +
                            "  - {at: +30s, set: {" + base + "0.paused: true}}\n" +
                            "  - {at: +30500ms, set: {" + base + "0.paused: false}}\n";
  REQUIRE(errors_of(as_fault) == "OK");
  REQUIRE(errors_of(as_timeline) == "OK");
  CHECK(fingerprint_of(as_fault) == fingerprint_of(as_timeline));
  CHECK(fingerprint_of(as_fault) != fingerprint_of(kValidScenario));  // the faults did something

  Scenario s = load_scenario_text(as_fault, "t.yaml", builtin_registry());
  REQUIRE(s.timeline.size() == 6);
  CHECK(s.timeline[0].at == 10 * sim::kSecond);
  CHECK(s.timeline[0].actions.at(0).target == "east/web/1");
  CHECK(s.timeline[0].actions.at(0).param == "link_delay");
  CHECK(s.timeline[1].at == 15 * sim::kSecond);
  CHECK(s.timeline[2].actions.size() == 2);  // both hosts of east/web
}

TEST_CASE("every fault kind is accepted where its hook exists") {
  // The kinds' own hooks: each entry loads on a base with that kind (the fuzz bases).
  for (const auto& k : fault_kinds()) {
    INFO(k.type);
    CHECK_FALSE(k.param.empty());
    CHECK(find_fault_kind(k.type) == &k);
    CHECK(fault_type_names().find(k.type) != std::string::npos);
  }
}

TEST_CASE("bad fault entries get one located error each") {
  struct Bad {
    const char* what;
    std::string entry;
    const char* expected;
  };
  std::vector<Bad> cases = {
      {"unknown kind", "  - {type: meteor, at: +5s, target: east/web}\n",
       "t.yaml:19:12: faults.0.type: unknown fault type 'meteor' (expected one of: crash, "
       "delay-spike, clog"},
      {"unknown target", "  - {type: clog, at: +5s, duration: 1s, target: east/nope}\n",
       "t.yaml:19:49: faults.0.target: no host or service 'east/nope'"},
      {"host index out of range", "  - {type: clog, at: +5s, duration: 1s, target: east/web/7}\n",
       "faults.0.target: no host 'east/web/7'"},
      {"a kind without that hook",
       "  - {type: scylla-down, at: +5s, duration: 1s, target: east/web, strength: 1}\n",
       "faults.0.target: 'east/web' is a queue-server service, which has no scylla-down fault "
       "(expected a host or service of kind fanout)"},
      {"negative strength",
       "  - {type: delay-spike, at: +5s, duration: 1s, target: east/web, strength: -20ms}\n",
       "t.yaml:19:76: faults.0.strength: strength must not be negative"},
      {"strength in the wrong unit",
       "  - {type: delay-spike, at: +5s, duration: 1s, target: east/web, strength: 20 apples}\n",
       "faults.0.strength:"},
      {"missing strength", "  - {type: delay-spike, at: +5s, duration: 1s, target: east/web}\n",
       "faults.0: delay-spike needs a strength"},
      {"strength on an on/off fault",
       "  - {type: clog, at: +5s, duration: 1s, target: east/web, strength: 50%}\n",
       "faults.0.strength: clog takes no strength"},
      {"outside the run", "  - {type: clog, at: +2m, duration: 1s, target: east/web}\n",
       "t.yaml:19:22: faults.0.at: is after the end of the run"},
      {"zero duration", "  - {type: clog, at: +5s, duration: 0s, target: east/web}\n",
       "faults.0.duration: fault duration out of range"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    std::string got = errors_of(with_faults(c.entry));
    INFO(got);
    CHECK(got.find(c.expected) != std::string::npos);
    CHECK(std::count(got.begin(), got.end(), '\n') <= 1);  // one error, not a cascade
  }
}
