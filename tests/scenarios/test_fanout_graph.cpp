// The fan-out scenario's follow graph (issue 23, deliverables 2-3): re-drawn per run seed
// unless `graph_seed` pins it, changing during the run (follows made, growers' counts seen
// through the high-follow cache with stale decisions counted), and a bad cache_refresh refused
// with the file and line.
#include <catch2/catch.hpp>
#include <string>

#include "scenario_fixtures.hpp"
#include "scenarios/runner.hpp"

using namespace skysim::scenarios;

namespace {

std::string world(int seed, const std::string& extra) {
  return R"(name: graph
epoch: 2026-02-19T12:00:00Z
duration: 40s
seed: )" + std::to_string(seed) +
         R"(
datacenters:
  east:
    services:
      timelines:
        kind: fanout
        hosts: 1
        params:
          users: 20k
          celebrity_followers: 5k
          bots: 1
          bot_follows: 2k
          posts_per_followed_s: 0.02
          nodes: 6
          shards_per_node: 4
          background_writes: 1k/s
          page_size: 1k
          concurrency: 100
          policy: lossy
          growers: 2
          grower_follows: 1900
          grower_follow_rate: 10/s
          cache_refresh: 5s
)" + extra + R"(
sources:
  author:
    client: author-posts
    from: east
    target: timelines.post
    rate: 0.1/s
)";
}

struct Ran {
  double edges = 0;
  double follows_made = 0;
  double stale_grower_writes = 0;
  double grower_delivered = 0;
};

Ran run(int seed, const std::string& extra = "") {
  Scenario sc = load_scenario_text(world(seed, extra), "graph.yaml", builtin_registry(), {});
  ScenarioRun r(sc, builtin_registry());
  r.run();
  const std::string host = "host=east/timelines/0";
  return {r.metrics().value("fanout.graph_edges{" + host + "}"),
          r.metrics().value("fanout.follows_made{" + host + "}"),
          r.metrics().value("fanout.stale_writes{class=grower," + host + "}"),
          r.metrics().value("fanout.grower_delivered_fraction{" + host + "}")};
}

}  // namespace

TEST_CASE("fanout scenario: the graph is re-drawn per seed unless graph_seed pins it") {
  const Ran a = run(1);
  const Ran b = run(2);
  CHECK(a.edges != b.edges);
  const std::string pin = "          graph_seed: 5\n";
  CHECK(run(1, pin).edges == run(2, pin).edges);
}

TEST_CASE("follow-graph store: the graph is re-drawn per seed unless graph_seed pins it") {
  // The same rule for the fan-out as parts (scenarios/kind_follow_graph.cpp).
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

TEST_CASE("fanout scenario: follows during the run, seen stale through the cache") {
  const Ran a = run(3);
  // 100/s ordinary + 2 growers x 10/s + the bot at 1666/h over 40 s.
  CHECK(a.follows_made > 0.8 * 120 * 40);
  CHECK(a.follows_made < 1.2 * 120 * 40);
  // The growers cross 2,000 after ~10 s; with a 5 s reload their factor is stale between.
  CHECK(a.stale_grower_writes > 0);
  CHECK(a.grower_delivered < 1.0);
}

TEST_CASE("fanout scenario: a cache_refresh below the Redis round trip is refused with its line") {
  const std::string bad =
      testing::errors_of(world(1, "").replace(world(1, "").find("cache_refresh: 5s"), 17,
                                              "cache_refresh: 1ms"));
  CHECK_THAT(bad, Catch::Contains("t.yaml:") && Catch::Contains("cache_refresh"));
}
