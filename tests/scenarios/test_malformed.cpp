// The malformed-input table: each broken scenario must give one clear, located error (never a
// crash, never a silent default). Run under ASan by the sanitizer build.
#include <catch2/catch.hpp>

#include "scenario_fixtures.hpp"

using namespace skysim::scenarios;
using namespace skysim::scenarios::testing;

namespace {

struct Case {
  const char* what;
  std::string text;
  const char* expected;  // substring of the diagnostics
};

std::string nested(int depth) {
  return "name: t\nx: " + std::string(static_cast<std::size_t>(depth), '[') +
         std::string(static_cast<std::size_t>(depth), ']') + "\n";
}

std::vector<Case> cases() {
  const std::string timeline_at = std::string(kValidScenario) + "timeline:\n  - at: ";
  return {
      {"typo in a top-level key", with("duration: 1m", "duraton: 1m"),
       "t.yaml:3:1: duraton: unknown key 'duraton'; did you mean 'duration'?"},
      {"typo in a parameter", with("workers: 4", "workerz: 4"),
       "t.yaml:11:11: datacenters.east.services.web.params.workerz: unknown key 'workerz'; did "
       "you mean 'workers'?"},
      {"duration without a unit", with("duration: 1m", "duration: 60"), "t.yaml:3:11: duration:"},
      {"duration in words", with("duration: 1m", "duration: one minute"),
       "(expected a duration like 600us, 15ms, 1.5s, 30m, 4d)"},
      {"negative rate", with("rate: 100/s", "rate: -5/s"),
       "t.yaml:17:11: sources.r.rate: negative rate '-5/s'"},
      {"rate without a time unit", with("rate: 100/s", "rate: 100"),
       "sources.r.rate: rate '100' has no time unit (expected a rate like 2.5/s"},
      {"rate with a bad unit", with("rate: 100/s", "rate: 100/fortnight"),
       "unknown rate unit in '100/fortnight'"},
      {"zero workers", with("workers: 4", "workers: 0"),
       "datacenters.east.services.web.params.workers: 0 is below the minimum (expected >= 1)"},
      {"huge number", with("workers: 4", "workers: 99999999999999999999999"),
       "params.workers: '99999999999999999999999' is too large"},
      {"unknown service kind", with("kind: queue-server", "kind: queue-servr"),
       "unknown service kind 'queue-servr'; did you mean 'queue-server'?"},
      {"user_facing not a boolean", with("rate: 100/s", "rate: 100/s\n    user_facing: maybe"),
       "t.yaml:18:18: sources.r.user_facing: not a boolean"},
      {"unknown first_arrival", with("rate: 100/s", "rate: 100/s\n    first_arrival: soon"),
       "t.yaml:18:20: sources.r.first_arrival: unknown first_arrival 'soon' (expected drawn "
       "(default: one exponential gap after start) or at_start)"},
      {"dangling endpoint", with("target: web.serve", "target: web.serv"),
       "sources.r.target: service 'web' (queue-server) has no endpoint 'serv'; did you mean "
       "'serve'? (expected one of: serve)"},
      {"dangling service", with("target: web.serve", "target: api.serve"),
       "sources.r.target: no service 'api'"},
      {"dangling datacenter", with("from: east", "from: west"),
       "sources.r.from: no datacenter 'west' (expected one of: east)"},
      {"duplicate key", with("rate: 100/s", "rate: 100/s\n    rate: 200/s"),
       "t.yaml:18:5: sources.r.rate: duplicate key 'rate'"},
      {"YAML syntax error", with("{exponential: {mean: 5ms}}", "{exponential: {mean: 5ms}"),
       "YAML syntax error: end of map flow not found"},
      {"empty file", "", "t.yaml: empty scenario file"},
      {"only a comment", "# nothing\n", "empty scenario file"},
      {"binary garbage",
       std::string("\x7f"
                   "ELF\x02\x01\x01\x00\x00\x00",
                   10),
       "NUL bytes: not a YAML text file"},
      {"garbage without NUL", "\x01\x02\xfe\xff\x80", "t.yaml"},
      {"top level is a list", "- a\n- b\n", "t.yaml:1:1: the top level must be a map"},
      {"dates out of order", timeline_at + "+30s\n  - at: +10s\n",
       "timeline.1.at: dates out of order: before the previous entry"},
      {"date before the epoch", timeline_at + "2026-04-05T23:00:00Z\n",
       "timeline.0.at: is before the epoch 2026-04-06T00:00:00Z"},
      {"date after the end", timeline_at + "2026-04-07T00:00:00Z\n",
       "timeline.0.at: is after the end of the run 2026-04-06T00:01:00Z"},
      {"stop before start", with("rate: 100/s", "rate: 100/s\n    start: +40s\n    stop: +20s"),
       "sources.r.stop: stop is before start"},
      {"unknown distribution", with("exponential:", "exponental:"),
       "params.service_time: unknown distribution 'exponental'"},
      {"distribution in the wrong unit", with("{mean: 5ms}", "{mean: 5GiB}"),
       "params.service_time:"},
      {"lognormal with p99 below the median",
       with("{exponential: {mean: 5ms}}", "{lognormal: {median: 5ms, p99: 1ms}}"),
       "lognormal needs 0 < median < p99"},
      {"zero hosts", with("hosts: 2", "hosts: 0"),
       "datacenters.east.services.web.hosts: host count out of range (expected 1 to 100000)"},
      {"missing required key", with("duration: 1m\n", ""), "missing required key 'duration'"},
      {"timeline sets an unknown path", timeline_at + "+10s\n    set: {sources.r.ratee: 5/s}\n",
       "timeline.0.set.sources.r.ratee: cannot set 'sources.r.ratee' at run time"},
      {"crash of a missing host", timeline_at + "+10s\n    crash: [east/web/5]\n",
       "timeline.0.crash: no host 'east/web/5'"},
      {"host override out of range",
       with("      web:\n        kind: queue-server\n",
            "      web:\n        kind: queue-server\n        host_overrides:\n          3: "
            "{workers: "
            "2}\n"),
       "host_overrides.3: no host 3 in a service of 2 hosts"},
      {"percentage above 100",
       with("rate: 100/s", "rate: 100/s\n    diurnal: {amplitude: 130%, peak: 18h}"),
       "sources.r.diurnal.amplitude: percentage '130%' is above 100%"},
      {"bad size unit", with("rate: 100/s", "rate: 100/s\n    request_size: {constant: 5 parsecs}"),
       "sources.r.request_size: unknown size unit in '5 parsecs'"},
      {"negative seed", with("duration: 1m", "duration: 1m\nseed: -4"), "seed: a seed cannot be negative: '-4'"},
      {"absurd duration", with("duration: 1m", "duration: 100000d"),
       "duration: duration out of range"},
      {"unknown fault type",
       std::string(kValidScenario) + "faults:\n  - {type: meteor, at: +5s, target: east/web}\n",
       "faults.0.type: unknown fault type 'meteor' (expected one of: crash, delay-spike"},
      {"impossible epoch", with("2026-04-06T00:00:00Z", "2026-13-45T00:00:00Z"),
       "t.yaml:2:8: epoch:"},
      {"date beyond int64 nanoseconds (found by the fuzzer)",
       with("2026-04-06T00:00:00Z", "4052-04-06T00:00:00Z"),
       "epoch: date '4052-04-06T00:00:00Z' is out of range"},
      {"params given as a list",
       with("          workers: 4\n          service_time: {exponential: {mean: 5ms}}\n",
            "          - 4\n"),
       "datacenters.east.services.web.params: must be a map"},
      {"deep nesting", nested(5000), "t.yaml"},
      {"bad name", with("name: t", "name: my scenario!"), "name: bad name 'my scenario!'"},
  };
}

}  // namespace

TEST_CASE("every malformed scenario gets its located, explained error") {
  auto all = cases();
  REQUIRE(all.size() >= 25);
  for (const auto& c : all) {
    INFO(c.what);
    std::string got = errors_of(c.text);
    INFO(got);
    CHECK(got != "OK");
    CHECK(got.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("a YAML syntax error carries line and column") {
  std::string got = errors_of("name: t\nepoch: [1, 2\n");
  INFO(got);
  CHECK(got.rfind("t.yaml:", 0) == 0);
  CHECK(std::isdigit(static_cast<unsigned char>(got[7])));
  CHECK(got.find(": YAML syntax error: ") != std::string::npos);
}

TEST_CASE("the valid fixture loads") { CHECK(errors_of(kValidScenario) == "OK"); }

TEST_CASE("all errors are reported in one pass") {
  std::string text = with("duration: 1m", "duraton: 1m");
  text = with("workers: 4", "workers: -1", text);
  text = with("target: web.serve", "target: web.nope", text);
  std::string got = errors_of(text);
  CHECK(got.find("duraton") != std::string::npos);
  CHECK(got.find("params.workers") != std::string::npos);
  CHECK(got.find("no endpoint 'nope'") != std::string::npos);
  CHECK(got.find("missing required key 'duration'") != std::string::npos);
}
