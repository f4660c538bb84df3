// The determinism contract's diagnosis: event logs of two runs, and the first event where they
// part.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "fuzz/event_log.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

using namespace skysim;

namespace {

struct Logged {
  std::vector<fuzz::EventRecord> records;
  std::vector<std::string> kinds;
  std::uint64_t fingerprint = 0;
  std::uint64_t events = 0;
};

Logged logged_run(std::uint64_t seed, const std::string& file = "") {
  scenarios::LoadOptions opts;
  opts.seed = seed;
  auto s = scenarios::load_scenario_file(
      std::string(SKYSIM_SOURCE_DIR) + "/scenarios/validation-mmck.yaml",
      scenarios::builtin_registry(), opts);
  scenarios::ScenarioRun run(s, scenarios::builtin_registry());
  fuzz::EventLog log(run.sim());
  auto r = run.run(20 * sim::kSecond);
  if (!file.empty()) log.write_file(file);
  return {log.records(), log.kind_names(), r.fingerprint, r.events};
}

}  // namespace

TEST_CASE("an event log records every event with the kernel's rolling fingerprint") {
  auto a = logged_run(1);
  REQUIRE(a.records.size() == a.events);
  CHECK(a.records.back().hash == a.fingerprint);
  CHECK(a.records.front().seq == 1);
  CHECK(a.records.back().seq == a.events);
  CHECK(std::is_sorted(a.records.begin(), a.records.end(),
                       [](const auto& x, const auto& y) { return x.time < y.time; }));
}

TEST_CASE("two runs of one seed never diverge; two seeds diverge at the first differing event") {
  auto a = logged_run(1), again = logged_run(1), b = logged_run(2);
  CHECK_FALSE(fuzz::first_divergence(a.records, again.records));
  auto d = fuzz::first_divergence(a.records, b.records);
  REQUIRE(d);
  REQUIRE(d->a);
  REQUIRE(d->b);
  for (std::size_t i = 0; i < d->index; ++i) {
    REQUIRE(a.records[i].time == b.records[i].time);
    REQUIRE(a.records[i].kind == b.records[i].kind);
    REQUIRE(a.records[i].actor == b.records[i].actor);
  }
  const auto& x = a.records[d->index];
  const auto& y = b.records[d->index];
  CHECK((x.time != y.time || x.kind != y.kind || x.actor != y.actor));
  CHECK(d->a->seq == d->index + 1);
}

TEST_CASE("a run that stops early diverges where it ended") {
  auto a = logged_run(1);
  auto shorter = a.records;
  shorter.resize(shorter.size() / 2);
  auto d = fuzz::first_divergence(a.records, shorter);
  REQUIRE(d);
  CHECK(d->index == shorter.size());
  CHECK(d->a);
  CHECK_FALSE(d->b);
}

TEST_CASE("event logs round-trip through their file and name the diverging event") {
  auto dir = std::filesystem::temp_directory_path() / "skysim-test-event-log";
  std::filesystem::create_directories(dir);
  auto a = logged_run(1, (dir / "a.events").string());
  auto b = logged_run(2, (dir / "b.events").string());
  auto la = fuzz::read_event_log((dir / "a.events").string());
  auto lb = fuzz::read_event_log((dir / "b.events").string());
  CHECK(la.records == a.records);
  CHECK(la.kinds == a.kinds);
  auto d = fuzz::first_divergence(la.records, lb.records);
  REQUIRE(d);
  std::string text = fuzz::describe_divergence(*d, la, lb, 0);
  INFO(text);
  CHECK(text.find("first diverging event: #" + std::to_string(d->index + 1)) != std::string::npos);
  CHECK(text.find("kind " + la.kind_name(d->a->kind)) != std::string::npos);
  CHECK(text.find("actor " + std::to_string(d->b->actor)) != std::string::npos);
  {
    std::ofstream junk(dir / "junk.events");
    junk << "not an event log";
  }
  CHECK_THROWS_AS(fuzz::read_event_log((dir / "junk.events").string()), std::runtime_error);
  CHECK_THROWS_AS(fuzz::read_event_log((dir / "missing.events").string()), std::runtime_error);
  std::filesystem::remove_all(dir);
}
