// A fan-out writing into the scylla service the data plane reads (issue 26,
// docs/whole-system.md): the fleet (fanout-fleet) writes the hyper-followers' timelines into the
// `timeline` cluster; the data plane's reads of that cluster meet the bots' hot shards, and the
// lossy component's filtering is what takes them away. (Until 7a68e53 also the fanout kind's
// `cluster:`, which gave the same hot shards and read P99s.)
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "scenario_fixtures.hpp"

using namespace skysim::scenarios;
using Ran = skysim::scenarios::testing::TextRun;
using skysim::scenarios::testing::build_error;
using skysim::scenarios::testing::run_scenario_text;

namespace {

// Both worlds' first lines: 20 s of one datacenter, its services following.
const std::string kEastServices = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 20s
datacenters:
  east:
    services:
)";

// The data plane: `api` reads random partitions of `timeline` at 500/s.
const std::string kDataPlane = R"(      api:
        kind: go-service
        program:
          clients:
            db: {target: timeline, driver: gocql, rtt: 0s, timeout: 1s}
          handlers:
            get:
              - call: {client: db, endpoint: read}
sources:
  readers:
    from: east
    target: api.get
    rate: 500/s
)";

// 4 nodes x 4 shards each for `timeline` and a second cluster `own`; two bots follow 10k
// accounts posting 0.3/s each: 3,000 writes/s into each bot's timeline, whose RF=3 replicas
// make 6 hot shards on the cluster the fleet writes into (CLUSTER) under POLICY. `api` reads
// random partitions of `timeline` at 500/s.
std::string shared(const std::string& policy, const std::string& cluster = "timeline",
                   const std::string& partitions = "60k") {
  return kEastServices + R"(      timeline:
        kind: scylla
        params: {nodes: 4, shards_per_node: 4, partitions: )" +
         partitions + R"(, hot_window: 10s}
      own:
        kind: scylla
        params: {nodes: 4, shards_per_node: 4, partitions: 60k, hot_window: 10s}
      graph:
        kind: follow-graph
        params: {users: 20k, celebrity_followers: 10k, bots: 2, bot_follows: 10k, graph_seed: 7}
      fleet:
        kind: fanout-fleet
        params: {graph: graph, cluster: )" +
         cluster + R"(, posts_per_followed_s: 0.3, min_follows: 5000,
                 policy: )" +
         policy + "}\n" + kDataPlane;
}

Ran run_checked(const std::string& text) {
  Ran r = run_scenario_text(text);
  REQUIRE(r.result.invariants_hold());
  REQUIRE(r.result.stopped_early.empty());
  return r;
}

double read_p99_ms(Ran& r) {
  return static_cast<double>(
             r.run->metrics().histogram("scylla.read_latency_ns", {{"host", "east/timeline/0"}})
                 .quantile(0.99)) /
         1e6;
}


}  // namespace

TEST_CASE("shared cluster: the fleet's hot shards slow the data plane's reads, and its lossy "
          "filter takes them away",
          "[scenario][fanout][scylla]") {
  Ran own = run_checked(shared("full", "own"));  // the fan-out on a cluster of its own
  Ran full = run_checked(shared("full"));
  Ran lossy = run_checked(shared("lossy"));
  // The same bots make the same hot shards on whichever cluster they are written into.
  CHECK(own.value("scylla.hot_shards_max{host=east/own/0}") == 6);
  CHECK(own.value("scylla.hot_shards_max{host=east/timeline/0}") == 0);
  CHECK(full.value("scylla.hot_shards_max{host=east/timeline/0}") == 6);
  CHECK(lossy.value("scylla.hot_shards_max{host=east/timeline/0}") == 0);
  // ~6/16 of the reads have a replica on a hot shard; QUORUM waits for two of three.
  INFO("read p99 ms: own " << read_p99_ms(own) << ", full " << read_p99_ms(full) << ", lossy "
                           << read_p99_ms(lossy));
  CHECK(read_p99_ms(own) < 5);
  CHECK(read_p99_ms(full) > 100);
  CHECK(read_p99_ms(lossy) < 5);
  // The fleet's writes really land in the cluster it names: its counters see them.
  CHECK(full.value("scylla.max_shard_ops{host=east/timeline/0}") >
        10 * own.value("scylla.max_shard_ops{host=east/timeline/0}"));
}

TEST_CASE("shared cluster: a wrong `cluster:` is one located error", "[scenario][fanout][scylla]") {
  using skysim::scenarios::testing::errors_of;
  CHECK(errors_of(shared("full")) == "OK");
  CHECK_THAT(errors_of(shared("full", "nowhere")),
             Catch::Contains("t.yaml:18:41:") && Catch::Contains("fleet.params.cluster") &&
                 Catch::Contains("no service 'nowhere' declared above fleet in east"));
  // Not a scylla service.
  CHECK_THAT(errors_of(shared("full", "graph")), Catch::Contains("'graph' is a follow-graph service"));
  // The partition count is known only once the graph is drawn: an error when the world is built,
  // naming what the graph needs (20k users, the celebrity and the two bots).
  CHECK_THAT(build_error(shared("full", "timeline", "1k")),
             Catch::Contains("holds 1000 partitions; the graph's timelines need 20003"));
}

