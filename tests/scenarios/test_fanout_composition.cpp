// The fan-out as a composition (issue 26, M5): a follow-graph store, a scylla cluster, the
// fleet's background (fanout-fleet) and a go-service whose `post` handler walks the author's
// followers (follower_pages), thins each page (lossy_filter) and writes one timeline per
// follower (errgroup tasks_from: page, call key: item). Checked against what the loop must do
// (every follower offered once, one page per page_size, SetLimit's concurrency), against the
// lossy rule's arithmetic, against the fanout kind on the same graph, and its wiring errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "scenario_fixtures.hpp"

using namespace skysim::scenarios;
using skysim::scenarios::testing::errors_of;
using skysim::scenarios::testing::run_scenario_text;
using Ran = skysim::scenarios::testing::TextRun;

namespace {

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// 20k users; the celebrity has 15k followers (plus the two bots: 15,002); each bot follows 5k
// accounts (loss factor 2000/5000 = 0.4 under the lossy rule). One post at +1 s.
// FLAG: lossy_filter's enabled; LIMIT: the errgroup's SetLimit; FLEET: the fleet's policy.
std::string small_world(const std::string& flag = "false", const std::string& limit = "100",
                        const std::string& fleet = "full", const std::string& duration = "40s") {
  return R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: )" + duration + R"(
seed: 3
datacenters:
  east:
    services:
      graph:
        kind: follow-graph
        params: {users: 20k, celebrity_followers: 15k, bots: 2, bot_follows: 5k, graph_seed: 7}
      timelines:
        kind: scylla
        params: {nodes: 4, shards_per_node: 4, partitions: 21k}
      fleet:
        kind: fanout-fleet
        params: {graph: graph, cluster: timelines, posts_per_followed_s: 0.01, min_follows: 4000,
                 policy: )" +
         fleet + R"(}
      fanout:
        kind: go-service
        program:
          clients:
            graph: {target: graph, driver: graph}
            db: {target: timelines, driver: gocql, rtt: 0s, timeout: 11s}
          handlers:
            post:
              - follower_pages:
                  client: graph
                  author: celebrity
                  page_size: 1000
                  do:
                    - lossy_filter: {enabled: )" +
         flag + R"(}
                    - errgroup:
                        tasks_from: page
                        limit: )" +
         limit + R"(
                        do:
                          - call: {client: db, endpoint: write, key: item, on_error: continue}
sources:
  celebrity:
    client: celebrity-posts
    from: east
    target: fanout.post
    rate: 1/h
    first_arrival: at_start
    start: +1s
    stop: +2s
)";
}

constexpr const char* kHost = "host=east/fanout/0";
double offered(const Ran& r, const char* cls, const char* host = kHost) {
  return r.value(std::string("fanout.offered{class=") + cls + "," + host + "}");
}
double delivered(const Ran& r, const char* cls, const char* host = kHost) {
  return r.value(std::string("fanout.delivered{class=") + cls + "," + host + "}");
}

}  // namespace

TEST_CASE("fan-out composition: a post offers every follower once, a page per page_size") {
  Ran r = run_scenario_text(small_world());
  REQUIRE(r.result.invariants_hold());
  const double followers = offered(r, "ordinary") + offered(r, "hyper");
  CHECK(followers == 15'002);  // 15k ordinary followers and the two bots
  CHECK(offered(r, "hyper") >= 2);  // the bots, and any heavy ordinary follower
  // Full fan-out on an unloaded cluster: every write lands, once.
  CHECK(delivered(r, "ordinary") == offered(r, "ordinary"));
  CHECK(delivered(r, "hyper") == offered(r, "hyper"));
  auto& m = r.run->metrics();
  const auto& pages = m.histogram("fanout.page_duration_ns", {{"host", "east/fanout/0"}});
  CHECK(pages.count() == 16);  // ceil(15,002 / 1,000)
  // The post's writes are the cluster's only coordinated writes (the fleet's rows are its
  // fire-and-forget background).
  const auto& writes = m.histogram("scylla.write_latency_ns", {{"host", "east/timelines/0"}});
  CHECK(writes.count() == 15'002);
  CHECK(r.value("handler.ok{handler=post,host=east/fanout/0}") == 1);
}

TEST_CASE("fan-out composition: SetLimit(1) writes one follower at a time, SetLimit(100) overlaps") {
  // One write in flight: the post lasts the sum of its writes' latencies plus a page fetch
  // (1 ms) per page, so post time / writes = the mean write latency (+ 16 ms / 15,002).
  Ran serial = run_scenario_text(small_world("false", "1", "full", "60s"));
  REQUIRE(serial.result.invariants_hold());
  auto& m = serial.run->metrics();
  const auto& post = m.histogram("handler.latency_ns", {{"handler", "post"}, {"host", "east/fanout/0"}});
  const auto& write = m.histogram("scylla.write_latency_ns", {{"host", "east/timelines/0"}});
  REQUIRE(post.count() == 1);
  const double predicted = 15'002 * write.mean() + 16 * 1e6;
  INFO("post " << post.mean() / 1e9 << " s, predicted " << predicted / 1e9 << " s");
  CHECK(post.mean() == Approx(predicted).epsilon(0.001));
  // 100 in flight on an unloaded cluster: close to 100x shorter (the pages' tails and fetches
  // keep it above the ideal).
  Ran parallel = run_scenario_text(small_world("false", "100"));
  const auto& fast = parallel.run->metrics().histogram(
      "handler.latency_ns", {{"handler", "post"}, {"host", "east/fanout/0"}});
  REQUIRE(fast.count() == 1);
  CHECK(fast.mean() < post.mean() / 40);
  CHECK(fast.mean() > post.mean() / 100);
}

TEST_CASE("fan-out composition: lossy keeps every ordinary follower and a bot at its loss factor") {
  Ran r = run_scenario_text(small_world("true", "100", "lossy", "5m"));
  REQUIRE(r.result.invariants_hold());
  // The service's post: followers at or below 2,000 follows always kept.
  CHECK(delivered(r, "ordinary") == offered(r, "ordinary"));
  // The fleet's rows into the two bots (5,000 follows each, so 0.4 each): every post's page
  // draws its own r, so the kept count is a sum of Bernoulli(0.4) over the rows offered.
  const char* fleet = "host=east/fleet/0";
  REQUIRE(r.value("fanout.fleet_hyper_followers{host=east/fleet/0}") == 2);  // the bots alone
  const double n = offered(r, "hyper", fleet);
  const double k = delivered(r, "hyper", fleet);
  REQUIRE(n > 1000);
  const double sd = std::sqrt(n * 0.4 * 0.6);
  INFO("offered " << n << " kept " << k << " expected " << 0.4 * n << " sd " << sd);
  CHECK(std::abs(k - 0.4 * n) < 5 * sd);
  // Offered: each bot follows 5,000 accounts (the celebrity among them), each posting at
  // 0.01/s from the start: 2 x 5,000 x 0.01 rows/s over 300 s, Poisson.
  const double expected = 2 * 5'000 * 0.01 * 300;
  CHECK(std::abs(n - expected) < 5 * std::sqrt(expected));
  // Under full, the fleet keeps every row.
  Ran full = run_scenario_text(small_world("false", "100", "full", "5m"));
  CHECK(delivered(full, "hyper", fleet) == offered(full, "hyper", fleet));
}

TEST_CASE("fan-out composition: offers the same rows as the fanout kind on the same graph") {
  // The fanout kind with the same graph parameters and seed, an unloaded cluster and no
  // background: its timeline writes are the composition's deliveries, row for row.
  const std::string kind = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 40s
seed: 3
datacenters:
  east:
    services:
      timelines:
        kind: fanout
        params: {users: 20k, celebrity_followers: 15k, bots: 2, bot_follows: 5k, graph_seed: 7,
                 nodes: 4, shards_per_node: 4, posts_per_followed_s: 0, follow_events: 0/s,
                 bots_grow: false, page_size: 1000, concurrency: 100, background_writes: 0/s}
sources:
  celebrity:
    client: celebrity-posts
    from: east
    target: timelines.post
    rate: 1/h
    first_arrival: at_start
    start: +1s
    stop: +2s
)";
  Ran k = run_scenario_text(kind);
  Ran c = run_scenario_text(small_world());
  REQUIRE(k.result.invariants_hold());
  CHECK(k.value("fanout.timeline_writes{host=east/timelines/0}") ==
        delivered(c, "ordinary") + delivered(c, "hyper"));
  CHECK(k.value("fanout.graph_edges{host=east/timelines/0}") ==
        c.value("graph.edges{host=east/graph/0}"));
}

TEST_CASE("fan-out composition: the same seed gives the same run") {
  Ran a = run_scenario_text(small_world("true", "100", "lossy"));
  Ran b = run_scenario_text(small_world("true", "100", "lossy"));
  CHECK(a.result.fingerprint == b.result.fingerprint);
  CHECK(a.result.events == b.result.events);
}

TEST_CASE("fan-out composition: wiring errors name the file:line") {
  const std::string ok = small_world();
  REQUIRE(errors_of(ok) == "OK");
  SECTION("a graph client takes no round trip of its own") {
    auto e = errors_of(replace(ok, "{target: graph, driver: graph}",
                               "{target: graph, driver: graph, rtt: 1ms}"));
    CHECK_THAT(e, Catch::Contains("t.yaml:22:") &&
                      Catch::Contains("'rtt' does not apply to a graph client"));
  }
  SECTION("follower_pages through a client that is not a graph client") {
    auto e = errors_of(replace(ok, "client: graph\n                  author",
                               "client: db\n                  author"));
    CHECK_THAT(e, Catch::Contains("client 'db' is not a graph client"));
  }
  SECTION("a graph client aimed at a scylla service") {
    auto e = errors_of(replace(ok, "{target: graph, driver: graph}",
                               "{target: timelines, driver: graph}"));
    CHECK_THAT(e, Catch::Contains("a graph client needs a follow-graph service"));
  }
  SECTION("a lossy_filter outside a follower_pages") {
    auto e = errors_of(replace(ok, "            post:\n",
                               "            post:\n              - lossy_filter: {}\n"));
    CHECK_THAT(e, Catch::Contains("t.yaml:26:") &&
                      Catch::Contains("lossy_filter thins the page of a follower_pages"));
  }
  SECTION("a lossy_filter inside the per-follower goroutines") {
    auto e = errors_of(replace(ok, "                          - call:",
                               "                          - lossy_filter: {}\n"
                               "                          - call:"));
    CHECK_THAT(e, Catch::Contains("runs once per follower"));
  }
  SECTION("tasks_from: page and key: item outside what names a page and an item") {
    auto e = errors_of(replace(ok, "            post:\n",
                               "            post:\n"
                               "              - errgroup: {tasks_from: page, do: [{sleep: {}}]}\n"
                               "              - call: {client: db, endpoint: write, key: item}\n"));
    CHECK_THAT(e, Catch::Contains("tasks_from: page runs one goroutine per follower") &&
                      Catch::Contains("key: item names the follower"));
  }
  SECTION("an author the graph does not have: one error at run start, at the step") {
    const std::string bad = replace(ok, "author: celebrity", "author: nobody");
    CHECK(errors_of(bad) == "OK");  // names in the graph are known once it is drawn
    CHECK_THROWS_WITH(run_scenario_text(bad),
                      Catch::Contains("follower_pages at t.yaml:26:") &&
                          Catch::Contains("no account 'nobody'") &&
                          Catch::Contains("celebrity, bot/0, bot/1"));
  }
  SECTION("a fleet without a cluster, or with one too small for the graph") {
    auto e = errors_of(replace(ok, "cluster: timelines, posts", "posts"));
    CHECK_THAT(e, Catch::Contains("cluster: name the scylla service"));
    const std::string small = replace(ok, "partitions: 21k", "partitions: 10k");
    CHECK_THROWS_WITH(run_scenario_text(small),
                      Catch::Contains("holds 10000 partitions") && Catch::Contains("20003"));
  }
}
