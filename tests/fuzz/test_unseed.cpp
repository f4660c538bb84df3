// The unseed (docs/fuzzing.md): per-stream draw counts and the models' folds catch a change
// that keeps every event in place but not its payload — the fingerprint, over (time, kind,
// actor), cannot — and the double-run's comparison names the first stream that drew
// differently.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

#include "fuzz/campaign.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "sim/simulation.hpp"

namespace {

// A fixed schedule: 50 ticks 1 ms apart, each drawing one word from stream "work" (its value
// unused, so the event order cannot depend on it); the tick `extra_at` draws one more.
struct Ticker final : sim::Handler {
  Ticker(sim::Simulation& s, int extra) : sim(s), extra_at(extra) { kind = s.intern_kind("tick"); }
  void on_event(sim::Simulation&) override {
    sim::Rng& rng = sim.stream("work");
    (void)rng.next_u64();
    if (n == extra_at) (void)rng.uniform01();
    if (++n < 50) sim.schedule_in(1'000'000, *this);
  }
  sim::Simulation& sim;
  int extra_at;
  int n = 0;
};

struct Outcome {
  std::uint64_t fingerprint, unseed, events;
  std::map<std::string, std::uint64_t> draws;
};

Outcome run_ticker(int extra_at, std::uint64_t fold = 0) {
  sim::Simulation s(7);
  Ticker t(s, extra_at);
  (void)s.stream("idle");  // created, never drawn from
  s.schedule_at(0, t);
  s.run();
  if (fold != 0) s.fold(fold);
  auto d = s.stream_draws();
  return {s.fingerprint(), s.unseed(), s.events_executed(), {d.begin(), d.end()}};
}

skysim::scenarios::Scenario demo(std::uint64_t seed) {
  skysim::scenarios::LoadOptions opts;
  opts.seed = seed;
  return skysim::scenarios::load_scenario_file(
      std::string(SKYSIM_SOURCE_DIR) + "/scenarios/demo.yaml",
      skysim::scenarios::builtin_registry(), opts);
}

}  // namespace

TEST_CASE("unseed: one extra draw keeps the fingerprint and changes the unseed") {
  Outcome base = run_ticker(-1), again = run_ticker(-1), extra = run_ticker(20);
  CHECK(base.events == 50);
  CHECK(base.draws == std::map<std::string, std::uint64_t>{{"idle", 0}, {"work", 50}});
  CHECK(again.unseed == base.unseed);
  CHECK(extra.fingerprint == base.fingerprint);
  CHECK(extra.unseed != base.unseed);
  CHECK(extra.draws.at("work") == 51);
  CHECK(extra.draws.at("idle") == 0);
}

TEST_CASE("unseed: a model's fold changes it and not the fingerprint") {
  Outcome base = run_ticker(-1), folded = run_ticker(-1, 42), other = run_ticker(-1, 43);
  CHECK(folded.fingerprint == base.fingerprint);
  CHECK(folded.draws == base.draws);
  CHECK(folded.unseed != base.unseed);
  CHECK(other.unseed != folded.unseed);
}

TEST_CASE("unseed: counting draws changes no drawn value") {
  // The counting engine hands out the engine's own words: the same as a bare mt19937_64.
  sim::Rng rng(sim::stream_seed(3, "x"));
  boost::random::mt19937_64 bare(sim::stream_seed(3, "x"));
  for (int i = 0; i < 1000; ++i) REQUIRE(rng.next_u64() == bare());
  CHECK(rng.draws() == 1000);
  (void)rng.exponential(2.0);
  (void)rng.uniform_int(0, 9);
  CHECK(rng.draws() >= 1002);  // a rejection redraws and counts every word it used
}

TEST_CASE("unseed: the double-run names the stream that drew once more, fingerprint unchanged") {
  namespace fs = std::filesystem;
  using skysim::scenarios::ScenarioRun;
  auto scenario = demo(1);
  fs::path root = fs::temp_directory_path() / ("skysim-unseed-" + std::to_string(::getpid()));
  fs::remove_all(root);
  std::map<std::string, skysim::scenarios::RunResult> result;
  std::string drawn;
  for (const char* which : {"a", "b"}) {
    ScenarioRun run(scenario, skysim::scenarios::builtin_registry());
    run.advance_to(scenario.duration);  // every event has run: a draw now moves none
    if (std::string(which) == "b") {
      auto streams = run.sim().stream_draws();
      REQUIRE(!streams.empty());
      drawn = streams.back().first;  // an existing stream, drawn from by a model
      REQUIRE(streams.back().second > 0);
      (void)run.sim().stream(drawn).next_u64();
    }
    result[which] = run.run();
    run.write_outputs((root / which / "out").string(), result[which], 0.0, {});
  }
  fs::path a = root / "a", b = root / "b";
  CHECK(result["a"].fingerprint == result["b"].fingerprint);
  CHECK(result["a"].sub_fingerprints == result["b"].sub_fingerprints);
  CHECK(result["a"].unseed != result["b"].unseed);
  std::string d = skysim::fuzz::first_metric_difference(a.string(), b.string());
  INFO(d);
  CHECK(d.find("unseed ") == 0);
  CHECK(d.find("stream " + drawn + " drew ") != std::string::npos);
  // The same run twice agrees on everything the comparison reads.
  CHECK(skysim::fuzz::first_metric_difference(a.string(), a.string()).empty());
  fs::remove_all(root);
}

TEST_CASE("unseed: a folded stream family that differs is named by the comparison") {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("skysim-family-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto write = [&](const char* which, const char* digest) {
    fs::create_directories(root / which / "out");
    std::ofstream(root / which / "out" / "summary.json")
        << R"({"unseed": ")" << digest << R"(", "stream_draws": {"h/strings": 4, )"
        << R"("h/worker/*": {"streams": 40, "draws": 120, "digest": ")" << digest
        << R"("}}, "metrics": {}})";
  };
  write("a", "00000000000000aa");
  write("b", "00000000000000bb");
  std::string d =
      skysim::fuzz::first_metric_difference((root / "a").string(), (root / "b").string());
  INFO(d);
  CHECK(d.find("unseed ") == 0);
  CHECK(d.find("stream h/worker/* drew ") != std::string::npos);
  fs::remove_all(root);
}
