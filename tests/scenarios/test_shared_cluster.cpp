// A fan-out service writing into a scylla service's cluster (the fanout kind's `cluster:`,
// issue 26, docs/whole-system.md): the data plane's reads of that cluster meet the
// hyper-followers' hot shards, and the lossy component's filtering is what takes them away.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "scenario_fixtures.hpp"

using namespace skysim::scenarios;
using Ran = skysim::scenarios::testing::TextRun;
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

// 4 nodes x 4 shards; two bots follow 10k accounts posting 0.3/s each: 3,000 writes/s into
// each bot's timeline, whose RF=3 replicas make 6 hot shards. `api` reads random partitions
// of the same cluster at 500/s.
std::string shared(const std::string& fanout_extra, const std::string& partitions = "60k",
                   bool scylla_first = true) {
  const std::string scylla = R"(      timeline:
        kind: scylla
        params: {nodes: 4, shards_per_node: 4, partitions: )" + partitions + "}\n";
  const std::string fanout = R"(      fanout:
        kind: fanout
        params:
          users: 20k
          celebrity_followers: 10k
          bots: 2
          bot_follows: 10k
          posts_per_followed_s: 0.3
          graph_seed: 7
)" + fanout_extra;
  return kEastServices + (scylla_first ? scylla + fanout : fanout + scylla) + kDataPlane;
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

std::string build_error(const std::string& text) {
  try {
    Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
    ScenarioRun run(s, builtin_registry());
    return "built";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("shared cluster: the fan-out's hot shards slow the data plane's reads",
          "[scenario][fanout][scylla]") {
  Ran own = run_checked(shared(""));  // the fan-out on a cluster of its own
  Ran full = run_checked(shared("          cluster: timeline\n"));
  Ran lossy = run_checked(shared("          cluster: timeline\n          policy: lossy\n"));
  // The same bots make the same hot shards on whichever cluster they are written into.
  CHECK(own.value("fanout.hot_shards_max{host=east/fanout/0}") == 6);
  CHECK(full.value("fanout.hot_shards_max{host=east/fanout/0}") == 6);
  CHECK(lossy.value("fanout.hot_shards_max{host=east/fanout/0}") == 0);
  // ~6/16 of the reads have a replica on a hot shard; QUORUM waits for two of three.
  INFO("read p99 ms: own " << read_p99_ms(own) << ", full " << read_p99_ms(full) << ", lossy "
                           << read_p99_ms(lossy));
  CHECK(read_p99_ms(own) < 5);
  CHECK(read_p99_ms(full) > 100);
  CHECK(read_p99_ms(lossy) < 5);
  // The fan-out's writes really land in the scylla service's cluster: its counters see them.
  CHECK(full.value("scylla.max_shard_ops{host=east/timeline/0}") >
        10 * own.value("scylla.max_shard_ops{host=east/timeline/0}"));
}

TEST_CASE("shared cluster: a wrong `cluster:` is one located error", "[scenario][fanout][scylla]") {
  using skysim::scenarios::testing::errors_of;
  const std::string at = "t.yaml:19:20: datacenters.east.services.fanout.params.cluster: ";
  CHECK_THAT(errors_of(shared("          cluster: nowhere\n")),
             Catch::Contains(at + "no service 'nowhere' declared above fanout in east"));
  // Declared below: the factory could not find it, so the loader says so.
  CHECK_THAT(errors_of(shared("          cluster: timeline\n", "60k", false)),
             Catch::Contains("no service 'timeline' declared above fanout in east"));
  // Not a scylla service: the api (a go-service) moved above the fan-out.
  std::string api_first = shared("          cluster: api\n");
  const auto api = api_first.find("      api:");
  const auto src = api_first.find("sources:");
  const std::string api_block = api_first.substr(api, src - api);
  api_first.erase(api, src - api);
  api_first.insert(api_first.find("      fanout:"), api_block);
  CHECK_THAT(errors_of(api_first), Catch::Contains("'api' is a go-service service"));
  // The partition count is known only once the graph is drawn: an error when the world is built.
  CHECK_THAT(build_error(shared("          cluster: timeline\n", "1k")),
             Catch::Contains("set its partitions: to at least"));
  CHECK(errors_of(shared("          cluster: timeline\n")) == "OK");
}

namespace {
// The same world with the fan-out as parts (scenarios/shared-cluster-composed.yaml's shape):
// the graph, and the fleet writing the bots' timelines into `timeline` under POLICY; the
// cluster counts its hot shards itself.
std::string shared_composed(const std::string& policy) {
  return kEastServices + R"(      timeline:
        kind: scylla
        params: {nodes: 4, shards_per_node: 4, partitions: 60k, hot_window: 10s}
      graph:
        kind: follow-graph
        params: {users: 20k, celebrity_followers: 10k, bots: 2, bot_follows: 10k, graph_seed: 7}
      fleet:
        kind: fanout-fleet
        params: {graph: graph, cluster: timeline, posts_per_followed_s: 0.3, min_follows: 5000,
                 policy: )" +
         policy + "}\n" + kDataPlane;
}
}  // namespace

TEST_CASE("shared cluster, every part composed: the fleet's hot shards slow the data plane's "
          "reads, and its lossy filter takes them away",
          "[scenario][fanout][scylla]") {
  Ran full = run_checked(shared_composed("full"));
  Ran lossy = run_checked(shared_composed("lossy"));
  // As the fanout kind's (above): each bot's 3,000 writes/s make its timeline's RF=3 replicas
  // hot, 6 shards; under lossy, none.
  CHECK(full.value("scylla.hot_shards_max{host=east/timeline/0}") == 6);
  CHECK(lossy.value("scylla.hot_shards_max{host=east/timeline/0}") == 0);
  INFO("read p99 ms: full " << read_p99_ms(full) << ", lossy " << read_p99_ms(lossy));
  CHECK(read_p99_ms(full) > 100);
  CHECK(read_p99_ms(lossy) < 5);
}
