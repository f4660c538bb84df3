// Round trip, overrides and determinism, driven through the library (no binary needed).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "scenario_fixtures.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/units.hpp"

using namespace skysim::scenarios;
using namespace skysim::scenarios::testing;

namespace {

std::uint64_t fingerprint_of(const Scenario& s) {
  ScenarioRun run(s, builtin_registry());
  return run.run().fingerprint;
}

Scenario load(const std::string& text, LoadOptions o = {}) {
  return load_scenario_text(text, "t.yaml", builtin_registry(), o);
}

const std::string kDemo = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/demo.yaml";

}  // namespace

TEST_CASE("every scenario in scenarios/ validates") {
  int n = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(SKYSIM_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    INFO(e.path().string());
    std::string err;
    try {
      load_scenario_file(e.path().string(), builtin_registry());
    } catch (const ScenarioError& x) {
      err = x.what();
    }
    CHECK(err == "");
    ++n;
  }
  CHECK(n >= 1);
}

TEST_CASE("the resolved scenario runs to the same fingerprint") {
  LoadOptions o;
  o.overrides = {parse_override("datacenters.east.services.web.params.workers=5"),
                 parse_override("sources.readers.rate=500/s")};
  o.seed = 7;
  Scenario s = load_scenario_file(kDemo, builtin_registry(), o);
  std::string resolved = resolved_yaml(s);
  Scenario again = load(resolved);
  CHECK(again.seed == 7);
  CHECK(resolved_yaml(again).substr(resolved_yaml(again).find('\n')) ==
        resolved.substr(resolved.find('\n')));
  CHECK(fingerprint_of(s) == fingerprint_of(again));
}

TEST_CASE("same seed, same fingerprint; another seed, another one") {
  Scenario a = load(kValidScenario);
  Scenario b = load(kValidScenario);
  LoadOptions o;
  o.seed = 2;
  Scenario c = load(kValidScenario, o);
  auto fa = fingerprint_of(a);
  CHECK(fa == fingerprint_of(b));
  CHECK(fa != fingerprint_of(c));
}

TEST_CASE("overrides given with --set use the validator's paths") {
  LoadOptions o;
  o.overrides = {parse_override("datacenters.east.services.web.params.workers=9"),
                 parse_override("datacenters.east.services.web.params.queue_capacity=3"),
                 parse_override("duration=2m")};
  Scenario s = load(kValidScenario, o);
  const ServiceSpec* web = s.service("east", "web");
  REQUIRE(web);
  CHECK(web->host_params[1].count("workers") == 9);
  CHECK(web->host_params[0].count("queue_capacity") == 3);
  CHECK(s.duration == 2 * sim::kMinute);
  CHECK(fingerprint_of(s) != fingerprint_of(load(kValidScenario)));

  SECTION("a misspelt override is an error located at the --set") {
    LoadOptions bad;
    bad.overrides = {parse_override("datacenters.east.services.web.params.wokers=9")};
    std::string got = errors_of(kValidScenario, bad);
    // The path is the --set's own: said once.
    CHECK(got.find("--set datacenters.east.services.web.params.wokers: unknown key 'wokers'") !=
          std::string::npos);
  }
  SECTION("an override value is checked like the file's") {
    LoadOptions bad;
    bad.overrides = {parse_override("sources.r.rate=-3/s")};
    CHECK(errors_of(kValidScenario, bad).find("--set sources.r.rate: negative") !=
          std::string::npos);
  }
  SECTION("a path through a value is an error") {
    LoadOptions bad;
    bad.overrides = {parse_override("duration.x=1")};
    CHECK(errors_of(kValidScenario, bad).find("'duration' is a single value") != std::string::npos);
  }
  SECTION("no '='") { CHECK_THROWS_AS(parse_override("duration"), ScenarioError); }
}

TEST_CASE("a run writes its outputs and its invariants hold") {
  Scenario s = load_scenario_file(kDemo, builtin_registry());
  ScenarioRun run(s, builtin_registry());
  RunResult r = run.run();
  CHECK(r.end == s.duration);
  CHECK(r.invariants_hold());
  CHECK(r.invariants.size() >= 2);
  // The crash at +7m dropped work on host 1 and the timeline added workers at +5m.
  CHECK(run.metrics().value("queue.dropped{host=east/web/1}") > 0);
  CHECK(run.metrics().value("host.crashes{host=east/web/1}") == 1);
  CHECK(run.metrics().value("requests.failed{client=app-readers,endpoint=serve}") > 0);
  auto dir = std::filesystem::temp_directory_path() / "skysim-test-roundtrip";
  std::filesystem::remove_all(dir);
  run.write_outputs(dir.string(), r, 0.5);
  for (const char* f : {"summary.json", "timeseries.csv", "scenario.resolved.yaml"}) {
    CHECK(std::filesystem::file_size(dir / f) > 100);
  }
  CHECK(fingerprint_of(load_scenario_file((dir / "scenario.resolved.yaml").string(),
                                          builtin_registry())) == r.fingerprint);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a run counts its events per kind, and the counts add up to its events") {
  Scenario s = load_scenario_file(kDemo, builtin_registry());
  ScenarioRun run(s, builtin_registry());
  RunResult r = run.run(s.duration / 4);
  REQUIRE(r.events_by_kind.size() >= 3);  // arrivals, service completions, metric samples
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < r.events_by_kind.size(); ++i) {
    CHECK(r.events_by_kind[i].second > 0);
    if (i > 0) CHECK(r.events_by_kind[i - 1].first < r.events_by_kind[i].first);  // by name
    sum += r.events_by_kind[i].second;
  }
  CHECK(sum == r.events);
  // Each group's events are its kinds' events (a kind's group is its name up to the '.').
  std::map<std::string, std::uint64_t> by_group;
  for (const auto& [kind, n] : r.events_by_kind) by_group[kind.substr(0, kind.find('.'))] += n;
  CHECK(by_group.size() == r.sub_fingerprints.size());
  auto dir = std::filesystem::temp_directory_path() / "skysim-test-roundtrip-kinds";
  std::filesystem::remove_all(dir);
  run.write_outputs(dir.string(), r, 0.5);
  std::ifstream in(dir / "summary.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string first = "\"events_by_kind\":{\"" + r.events_by_kind[0].first +
                            "\":" + std::to_string(r.events_by_kind[0].second);
  CHECK(text.find(first) != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a seed above 2^63 loads and is written to summary.json unsigned") {
  LoadOptions o;
  o.seed = 18446744073709551615ULL;  // 2^64 - 1: once written as -1 through an int64 cast
  Scenario s = load_scenario_file(kDemo, builtin_registry(), o);
  CHECK(s.seed == 18446744073709551615ULL);
  ScenarioRun run(s, builtin_registry());
  RunResult r = run.run(sim::Time{1});
  auto dir = std::filesystem::temp_directory_path() / "skysim-test-roundtrip-seed";
  std::filesystem::remove_all(dir);
  run.write_outputs(dir.string(), r, 0.5);
  std::ifstream in(dir / "summary.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"seed\":18446744073709551615,") != std::string::npos);
  std::filesystem::remove_all(dir);
  CHECK(parse_seed("1_000") == 1000);
  CHECK_THROWS_WITH(parse_seed("18446744073709551616"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_seed("-4"), Catch::Contains("a seed cannot be negative"));
}

TEST_CASE("a timeline start/stop gates a source") {
  std::string text = with("rate: 100/s", "rate: 100/s\n    enabled: false") +
                     "timeline:\n  - at: +30s\n    start: [r]\n  - at: +40s\n    stop: [r]\n";
  Scenario s = load(text);
  ScenarioRun run(s, builtin_registry());
  run.run();
  double issued = run.metrics().value("requests.issued{client=r,endpoint=serve}");
  // 10 s at 100/s: Poisson count 1000 +- 5 sd (sd = sqrt(1000) ~ 32)
  CHECK(issued > 1000 - 5 * 32);
  CHECK(issued < 1000 + 5 * 32);
}
