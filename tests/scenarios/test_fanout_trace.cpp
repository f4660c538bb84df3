// A trace of the celebrity fan-out's first post: the scylla service is a process with one thread
// track per shard (its slices never overlap, preempted tasks clipped), the Go fan-out service one
// with its goroutines and a slice per page on the post's; valid trace-event JSON, fingerprint
// unchanged. (The fanout kind's trace, until 7a68e53, had lanes of timeline reads and post
// fan-outs instead of goroutines.)
#include <catch2/catch.hpp>

#include "scenarios/loader.hpp"
#include "trace_run.hpp"

using namespace skysim::scenarios;

namespace {

// Traces FILE's first UNTIL: valid, the same fingerprint as untraced, every slice NAMES, more
// than 10 shard tracks, and a process named with CLUSTER (the Scylla cluster's).
void check_trace(const std::string& file, sim::Time until, std::initializer_list<const char*> names,
                 const std::string& cluster) {
  Scenario sc = load_scenario_file(std::string(SKYSIM_SOURCE_DIR) + "/" + file, builtin_registry(),
                                   LoadOptions{});
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
  for (const char* name : names) {
    INFO(name);
    CHECK(r.slices_by_name.count(name) == 1);
  }
  std::size_t shard_tracks = 0;
  for (const auto& [track, name] : r.thread_names) shard_tracks += name.find(" shard ") != std::string::npos;
  CHECK(shard_tracks > 10);
  bool cluster_named = false;
  for (const auto& [pid, name] : r.process_names) {
    cluster_named = cluster_named || name.find(cluster) != std::string::npos;
  }
  CHECK(cluster_named);
}

}  // namespace

TEST_CASE("fanout trace: a scylla service's shards and the Go fan-out's pages, valid and nested") {
  // The first post at +30 s: its first pages.
  check_trace("scenarios/fanout-policies.yaml", 35 * sim::kSecond,
              {"write", "coordinate write", "read", "page", "goroutine"}, "/timelines");
}
