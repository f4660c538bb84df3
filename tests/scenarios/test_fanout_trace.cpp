// A trace of the celebrity fan-out's first two minutes: the Scylla cluster is a process with one
// thread track per shard (its slices never overlap, preempted tasks clipped), the fan-out service one
// with lanes of timeline reads and post fan-outs; valid trace-event JSON, fingerprint unchanged.
#include <catch2/catch.hpp>

#include "scenarios/loader.hpp"
#include "trace_run.hpp"

using namespace skysim::scenarios;

TEST_CASE("fanout trace: Scylla shards and fan-out lanes, valid and nested") {
  const std::string file = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/celebrity-fanout.yaml";
  Scenario sc = load_scenario_file(file, builtin_registry(), LoadOptions{});
  const sim::Time until = 120 * sim::kSecond;  // reads from +30s, the first post after 90s
  std::uint64_t untraced = 0;
  {
    ScenarioRun run(sc, builtin_registry());
    untraced = run.run(until).fingerprint;
  }
  sim::Tracer::Options o;
  o.max_events = 200'000;
  testing::Traced t = testing::run_traced(sc, o, until);
  const auto& r = t.report;
  INFO((r.errors.empty() ? std::string() : r.errors.front()));
  CHECK(r.error_count == 0);
  CHECK(t.fingerprint == untraced);
  for (const char* name : {"write", "coordinate write", "read", "timeline read", "page"}) {
    INFO(name);
    CHECK(r.slices_by_name.count(name) == 1);
  }
  std::size_t shard_tracks = 0;
  for (const auto& [track, name] : r.thread_names) shard_tracks += name.find(" shard ") != std::string::npos;
  CHECK(shard_tracks > 10);
  bool cluster_named = false;
  for (const auto& [pid, name] : r.process_names) {
    cluster_named = cluster_named || name.find("/scylla") != std::string::npos;
  }
  CHECK(cluster_named);
}
