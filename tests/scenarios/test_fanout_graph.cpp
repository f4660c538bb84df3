// The fan-out's follow graph (issue 23, deliverables 2-3): a follow-graph store's graph is
// re-drawn per run seed unless `graph_seed` pins it, and a fleet's bad cache_refresh is refused
// with the file and line. The graph changing during the run (follows made, growers' counts seen
// through the high-follow cache, stale decisions counted) is test_fanout_composition's
// "the graph grows under the fleet".
#include <catch2/catch.hpp>
#include <string>

#include "scenario_fixtures.hpp"
#include "scenarios/runner.hpp"

using namespace skysim::scenarios;

TEST_CASE("follow-graph store: the graph is re-drawn per seed unless graph_seed pins it") {
  // scenarios/kind_follow_graph.cpp draws it from the run seed's stream unless pinned.
  auto edges = [](int seed, const std::string& extra) {
    const std::string text = R"(name: graph
epoch: 2026-02-19T12:00:00Z
duration: 1s
seed: )" + std::to_string(seed) + R"(
datacenters:
  east:
    services:
      graph:
        kind: follow-graph
        params:
          users: 20k
          celebrity_followers: 5k
          bots: 1
          bot_follows: 2k
)" + extra;
    Scenario sc = load_scenario_text(text, "graph.yaml", builtin_registry(), {});
    ScenarioRun r(sc, builtin_registry());
    r.run();
    return r.metrics().value("graph.edges{host=east/graph/0}");
  };
  CHECK(edges(1, "") > 0);
  CHECK(edges(1, "") != edges(2, ""));
  CHECK(edges(1, "") == edges(1, ""));
  const std::string pin = "          graph_seed: 5\n";
  CHECK(edges(1, pin) == edges(2, pin));
}

TEST_CASE("fanout-fleet: a cache_refresh below the Redis round trip is refused with its line") {
  // The instance's reload reads the sorted set in Redis (§8.3): a period shorter than one round
  // trip (2 ms, the parameter's floor) cannot be what production runs.
  const std::string text = R"(name: graph
epoch: 2026-02-19T12:00:00Z
duration: 1s
datacenters:
  east:
    services:
      graph:
        kind: follow-graph
        params: {users: 20k, celebrity_followers: 5k, bots: 1, bot_follows: 2k}
      timelines:
        kind: scylla
        params: {nodes: 4, shards_per_node: 4, partitions: 21k}
      fleet:
        kind: fanout-fleet
        params: {graph: graph, cluster: timelines, policy: lossy, cache_refresh: 5s}
)";
  REQUIRE(testing::errors_of(text) == "OK");
  std::string bad = text;
  bad.replace(bad.find("cache_refresh: 5s"), 17, "cache_refresh: 1ms");
  CHECK_THAT(testing::errors_of(bad),
             Catch::Contains("t.yaml:15:") && Catch::Contains("cache_refresh"));
}
