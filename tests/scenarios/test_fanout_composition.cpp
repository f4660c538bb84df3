// The fan-out as a composition (issue 26, M5): a follow-graph store, a scylla cluster, the
// fleet's background (fanout-fleet) and a go-service whose `post` handler walks the author's
// followers (follower_pages), thins each page (lossy_filter) and writes one timeline per
// follower (errgroup tasks_from: page, call key: item). Checked against what the loop must do
// (every follower offered once, one page per page_size, SetLimit's concurrency), against the
// lossy rule's arithmetic, and its wiring errors. (Against the fanout kind it replaced, row for
// row on the same graph and figure by figure over seeds, until that kind was removed after
// 7a68e53: docs/fanout.md "As a composition".)
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "models/fanout/split_timelines.hpp"
#include "scenario_fixtures.hpp"
#include "scenarios/follow_graph_service.hpp"

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

TEST_CASE("fan-out composition: the same seed gives the same run") {
  Ran a = run_scenario_text(small_world("true", "100", "lossy"));
  Ran b = run_scenario_text(small_world("true", "100", "lossy"));
  CHECK(a.result.fingerprint == b.result.fingerprint);
  CHECK(a.result.events == b.result.events);
}

namespace {
// small_world with fan-out-on-read at THRESHOLD followers (posts and reads) and 100 readers/s
// from +1 s: each reads its timeline and the lists of the on-read accounts it follows.
std::string on_read_world(const std::string& threshold) {
  std::string w = small_world("false", "100", "full", "20s");
  w = replace(w, "                  page_size: 1000\n",
              "                  page_size: 1000\n                  on_read_threshold: " +
                  threshold + "\n");
  w = replace(w, "partitions: 21k", "partitions: 41k");  // timelines and lists
  w = replace(w, "sources:\n", R"(            read:
              - read_set: {client: graph, on_read_threshold: )" +
                                     threshold + R"(}
              - errgroup:
                  tasks_from: page
                  do:
                    - call: {client: db, endpoint: read, key: item, on_error: continue}
sources:
  readers: {client: app-readers, from: east, target: fanout.read, rate: 100/s, start: +1s}
)");
  return w;
}
}  // namespace

TEST_CASE("fan-out composition: on_read writes the author's list once, and readers merge it") {
  // The celebrity has 15,002 followers: at a threshold of 10k its post is not fanned out but
  // written once into its recent-post list (partition users + author), and a reader reads its
  // timeline plus that list when it follows the celebrity: 15,002 of the 20,003 accounts do.
  Ran r = run_scenario_text(on_read_world("10k"));
  REQUIRE(r.result.invariants_hold());
  CHECK(r.value("fanout.list_writes{host=east/fanout/0}") == 1);
  CHECK(offered(r, "ordinary") + offered(r, "hyper") == 0);  // merged at read: none offered
  auto& m = r.run->metrics();
  CHECK(m.histogram("scylla.write_latency_ns", {{"host", "east/timelines/0"}}).count() == 1);
  const double reads = r.value("fanout.reads{host=east/fanout/0}");
  const double partitions = r.value("fanout.read_partitions{host=east/fanout/0}");
  REQUIRE(reads > 1000);
  // Every named partition was read, and each read named its own timeline plus the list with
  // probability 15,002 / 20,003 (a binomial count of merges).
  CHECK(m.histogram("scylla.read_latency_ns", {{"host", "east/timelines/0"}}).count() ==
        partitions);
  const double p = 15'002.0 / 20'003.0;
  const double merges = partitions - reads;
  INFO("reads " << reads << " merges " << merges << " expected " << p * reads);
  CHECK(std::abs(merges - p * reads) < 5 * std::sqrt(reads * p * (1 - p)));
  // Above the celebrity's followers nobody is merged: it fans out, and a read is one partition.
  Ran fanned = run_scenario_text(on_read_world("20k"));
  CHECK(fanned.value("fanout.list_writes{host=east/fanout/0}") == 0);
  CHECK(offered(fanned, "ordinary") + offered(fanned, "hyper") == 15'002);
  CHECK(fanned.value("fanout.read_partitions{host=east/fanout/0}") ==
        fanned.value("fanout.reads{host=east/fanout/0}"));
}

TEST_CASE("fan-out composition: shuffle_retry sends a read still unanswered after the delay to "
          "one more replica of its set") {
  // The cluster's speculative retry (the fanout kind's shuffle_retry): a read whose QUORUM
  // replies have not all arrived speculative_retry after it was sent also goes to the set's
  // third replica. A replica's answer takes tens of microseconds at least, so at 1 us every
  // read is retried once; at 10 s none is; without the parameter none is.
  auto with_retry = [](const std::string& delay) {
    std::string w = on_read_world("0");
    return replace(w, "partitions: 41k",
                   "partitions: 41k, placement: shuffle_shard, speculative_retry: " + delay);
  };
  const char* spec = "scylla.speculative_reads{host=east/timelines/0}";
  Ran every = run_scenario_text(with_retry("1us"));
  REQUIRE(every.result.invariants_hold());
  const double reads = every.value("fanout.read_partitions{host=east/fanout/0}");
  REQUIRE(reads > 1000);
  CHECK(every.value(spec) == reads);
  CHECK(run_scenario_text(with_retry("10s")).value(spec) == 0);
  CHECK(run_scenario_text(on_read_world("0")).value(spec) == 0);
}

TEST_CASE("fan-out composition: split writes a follower's part and a read merges every part") {
  // split_follows 20: a user following more than 20 accounts has one sub-timeline per 20
  // follows (models/fanout/split_timelines.hpp). The celebrity's post still reaches each
  // follower once; each read names every part of its reader's timeline, so the partitions per
  // read average the graph's parts per user (readers are drawn uniformly).
  std::string w = on_read_world("0");
  w = replace(w, "page_size: 1000\n", "page_size: 1000\n                  split_follows: 20\n");
  w = replace(w, "on_read_threshold: 0}", "on_read_threshold: 0, split_follows: 20}");
  w = replace(w, "partitions: 41k", "partitions: 400k");
  Ran r = run_scenario_text(w);
  REQUIRE(r.result.invariants_hold());
  const FollowGraphStore* store = follow_graph_of(r.run->world().find("east/graph/0"));
  REQUIRE(store != nullptr);
  const social::FollowGraph& g = *store->graph;
  const fanout::SplitTimelines& layout = store->split(20);
  REQUIRE(layout.partitions() <= 400'000);
  const double extra = layout.partitions() - 2.0 * g.users();
  INFO("extra parts " << extra);
  REQUIRE(extra > 1000);  // the test needs split readers
  CHECK(delivered(r, "ordinary") + delivered(r, "hyper") == 15'002);
  const double reads = r.value("fanout.reads{host=east/fanout/0}");
  const double partitions = r.value("fanout.read_partitions{host=east/fanout/0}");
  REQUIRE(reads > 1000);
  // Mean and spread of a reader's part count over the graph's users.
  double mean = 0, sq = 0;
  for (social::UserId u = 0; u < g.users(); ++u) {
    const double parts = layout.parts(u);
    mean += parts;
    sq += parts * parts;
  }
  mean /= g.users();
  const double sd = std::sqrt(sq / g.users() - mean * mean);
  INFO("reads " << reads << " partitions " << partitions << " mean parts " << mean);
  CHECK(std::abs(partitions / reads - mean) < 5 * sd / std::sqrt(reads));
  // Every partition a post wrote is one of its follower's parts: the bots' parts hold the
  // celebrity's rows in the part its id picks, the same one for both (a pure function).
  for (const social::UserId bot : {g.id_of("bot/0"), g.id_of("bot/1")}) {
    const std::uint32_t part = layout.partition(bot, g.id_of("celebrity"));
    CHECK((part == bot || (part >= layout.extra_begin(bot) && part < layout.extra_end(bot))));
    CHECK(layout.parts(bot) == 250);  // 5,000 follows / 20
  }
  // A cluster too small for the parts is refused at start, not wrapped onto other partitions.
  const std::string small = replace(w, "partitions: 400k", "partitions: 41k");
  CHECK_THROWS_WITH(run_scenario_text(small),
                    Catch::Contains("east/fanout/0: the call at") &&
                        Catch::Contains("scylla service 'timelines' holds 41000: set its "
                                        "partitions: to at least " +
                                        std::to_string(layout.partitions())));
  // Without the split, one partition per read.
  Ran whole = run_scenario_text(on_read_world("0"));
  CHECK(whole.value("fanout.read_partitions{host=east/fanout/0}") ==
        whole.value("fanout.reads{host=east/fanout/0}"));
}

namespace {
// small_world with a hyper-detector (threshold 20 writes/s over 10 s windows, ACTION) that sees
// the fleet's rows and the post's pages (hyper_detect after the lossy_filter), the celebrity's
// post at +15 s. Each bot's timeline gets 5,000 x 0.01 = 50 fleet rows/s: past the threshold
// within the first window; an ordinary user gets a handful.
std::string detect_world(const std::string& action, const std::string& enabled = "true") {
  std::string w = small_world("false", "100", "full", "30s");
  w = replace(w, "      fleet:\n", R"(      detector:
        kind: hyper-detector
        params: {graph: graph, threshold: 20/s, action: )" +
                                      action + ", enabled: " + enabled + R"(}
      fleet:
)");
  w = replace(w, "min_follows: 4000,", "min_follows: 4000, detector: detector,");
  w = replace(w, "            graph: {target: graph, driver: graph}\n",
              "            graph: {target: graph, driver: graph}\n"
              "            det: {target: detector, driver: detector}\n");
  w = replace(w, "                    - errgroup:\n",
              "                    - hyper_detect: {client: det}\n                    - errgroup:\n");
  w = replace(w, "start: +1s\n    stop: +2s", "start: +15s\n    stop: +16s");
  return w;
}
}  // namespace

TEST_CASE("fan-out composition: hyper_detect flags the bots from the fleet's rows and refuses "
          "their writes") {
  const char* det = "{host=east/detector/0}";
  auto v = [det](const Ran& r, const std::string& name) { return r.value(name + det); };
  Ran block = run_scenario_text(detect_world("block"));
  REQUIRE(block.result.invariants_hold());
  // Both bots and nobody else: 50 rows/s each against a threshold of 20/s; the celebrity's
  // 15,002 followers get one write each.
  CHECK(v(block, "fanout.detect_flagged") == 2);
  CHECK(v(block, "fanout.detect_bots_flagged") == 2);
  CHECK(v(block, "fanout.detect_false_positives") == 0);
  // Flagged at the 201st row of the first 10 s window, ~4 s in (50/s from the run's start).
  const double delay_s = v(block, "fanout.detect_delay_mean_ns") / 1e9;
  CHECK(delay_s > 3.0);
  CHECK(delay_s < 5.0);
  // The post at +15 s reaches every follower but the two flagged bots.
  CHECK(offered(block, "ordinary") + offered(block, "hyper") == 15'002);
  CHECK(delivered(block, "ordinary") == offered(block, "ordinary"));
  CHECK(delivered(block, "hyper") == offered(block, "hyper") - 2);
  // Everything observed after the flags is refused: the post's two and the fleet's rows.
  const double refused = v(block, "fanout.detect_dropped");
  CHECK(refused > 2 * 50 * 20);  // ~26 s of both bots' rows
  // limit: the flagged bots keep 10 rows/s of their 50, so fewer are refused.
  Ran limit = run_scenario_text(detect_world("limit"));
  CHECK(v(limit, "fanout.detect_flagged") == 2);
  const double limited = v(limit, "fanout.detect_dropped");
  INFO("refused under block " << refused << ", under limit " << limited);
  CHECK(limited < refused * 0.9);
  CHECK(limited > refused * 0.7);  // (50 - 10) / 50 of the rows after the flag
  // The feature flag off: nothing counted, every follower delivered.
  Ran off = run_scenario_text(detect_world("block", "false"));
  CHECK(v(off, "fanout.detect_observed") == 0);
  CHECK(delivered(off, "ordinary") + delivered(off, "hyper") == 15'002);
}

namespace {
// small_world with a shard_queue (RATE per shard lane, 4 in flight) in place of the errgroup.
std::string queue_world(const std::string& rate) {
  return replace(small_world(), R"(                    - errgroup:
                        tasks_from: page
                        limit: 100
                        do:
                          - call: {client: db, endpoint: write, key: item, on_error: continue}
)",
                 "                    - shard_queue: {client: db, rate: " + rate +
                     ", in_flight: 4}\n");
}
}  // namespace

TEST_CASE("fan-out composition: shard_queue drains each shard's lane at its rate and the post "
          "waits for the last answer") {
  // 15,002 writes over 16 shards (4 nodes x 4), ~940 per lane: at 100 writes/s per lane the
  // post takes ~9.4 s, the lanes' drain time, while the page loop queues all 16 pages in
  // ~16 page fetches; at 100k/s per lane the writes' own latency is what is left.
  Ran slow = run_scenario_text(queue_world("100/s"));
  REQUIRE(slow.result.invariants_hold());
  CHECK(delivered(slow, "ordinary") + delivered(slow, "hyper") == 15'002);
  auto& m = slow.run->metrics();
  const sim::Histogram& post = m.histogram("requests.latency_ns",
                                           {{"client", "celebrity-posts"}, {"endpoint", "post"}});
  REQUIRE(post.count() == 1);
  INFO("post " << post.max() / 1e9 << " s");
  CHECK(post.max() > 7.0e9);   // the deepest lane: > 700 writes at 100/s
  CHECK(post.max() < 14.0e9);  // and not one lane after another
  // A page's time ends at its last answer: the last pages wait behind the earlier ones.
  const sim::Histogram& pages = m.histogram("fanout.page_duration_ns", {{"host", "east/fanout/0"}});
  CHECK(pages.count() == 16);
  CHECK(pages.max() > 5.0e9);
  CHECK(slow.value("fanout.queue_max_depth{host=east/fanout/0}") > 500);
  // No call went through the gocql pool: the queue wrote every row itself.
  CHECK(m.histogram("fanout.queued_write_latency_ns", {{"host", "east/fanout/0"}}).count() ==
        15'002);
  Ran fast = run_scenario_text(queue_world("100k/s"));
  const sim::Histogram& quick = fast.run->metrics().histogram(
      "requests.latency_ns", {{"client", "celebrity-posts"}, {"endpoint", "post"}});
  CHECK(delivered(fast, "ordinary") + delivered(fast, "hyper") == 15'002);
  CHECK(quick.max() < 1.0e9);
}

TEST_CASE("fan-out composition: per_shard writes one inbox row per shard holding a follower, "
          "and a reader scans its shard's inbox") {
  // The celebrity (15,002 followers, over 10k) is merged at read; its followers' timelines
  // have their first replicas on all 16 shards (4 nodes x 4), so its post is 16 inbox writes.
  auto per_shard = [](const std::string& threshold) {
    std::string w = on_read_world(threshold);
    w = replace(w, "                  on_read_threshold: " + threshold + "\n",
                "                  on_read_threshold: " + threshold +
                    "\n                  on_read: per_shard\n                  cluster: db\n");
    return replace(w, "read_set: {client: graph, on_read_threshold: " + threshold + "}",
                   "read_set: {client: graph, on_read_threshold: " + threshold +
                       ", on_read: per_shard, cluster: db}");
  };
  Ran r = run_scenario_text(per_shard("10k"));
  REQUIRE(r.result.invariants_hold());
  CHECK(r.value("fanout.list_writes{host=east/fanout/0}") == 16);
  CHECK(offered(r, "ordinary") + offered(r, "hyper") == 0);
  const double reads = r.value("fanout.reads{host=east/fanout/0}");
  const double partitions = r.value("fanout.read_partitions{host=east/fanout/0}");
  const double rows = r.value("fanout.read_rows{host=east/fanout/0}");
  REQUIRE(reads > 1000);
  // A reader who follows the celebrity reads its shard's inbox too (p = 15,002 / 20,003).
  const double p = 15'002.0 / 20'003.0;
  CHECK(std::abs(partitions - reads - p * reads) < 5 * std::sqrt(reads * p * (1 - p)));
  // One merged author: every inbox holds it alone, so a page of it is 50 rows.
  CHECK(rows == 50 * partitions);
  // At 1k followers more authors are merged; an inbox holds the posts of every merged author
  // followed by someone on its shard, and a reader scans past the ones it does not follow.
  Ran more = run_scenario_text(per_shard("1k"));
  const double more_rows = more.value("fanout.read_rows{host=east/fanout/0}");
  const double more_partitions = more.value("fanout.read_partitions{host=east/fanout/0}");
  INFO("rows per partition at 1k: " << more_rows / more_partitions);
  CHECK(more_rows > 1.5 * 50 * more_partitions);  // 165.6 rows per partition on this graph
  // Without a cluster client the step cannot place the inboxes: one error at start.
  std::string no_cluster = per_shard("10k");
  no_cluster = replace(no_cluster, "                  cluster: db\n", "");
  CHECK_THROWS_WITH(run_scenario_text(no_cluster),
                    Catch::Contains("per_shard needs on_read_threshold > 0 and cluster:"));
}

namespace {
// small_world with the cluster's per-node hot-key detectors on, the fleet posting 20x faster
// (each bot's timeline ~1,000 rows/s), and key 0 read at 1,000/s through a client with a
// hot-key cache of CACHE and, unless WRITES is 0/s, written at WRITES. A node samples one
// request in 100 and flags a key at 100 samples of its last 10,000 (Pelikan's defaults): the
// keys' ~1/3 shares of the ~1,000 requests/s a node coordinates flag them ~30 s in.
std::string hotkey_world(const std::string& cache, const std::string& writes = "0/s") {
  std::string w = small_world("false", "100", "full", "60s");
  w = replace(w, "partitions: 21k}", "partitions: 21k, hot_keys: true}");
  w = replace(w, "posts_per_followed_s: 0.01,", "posts_per_followed_s: 0.2,");
  w = replace(w, "sources:\n", R"(            read_hot:
              - call: {client: db, endpoint: read, key: uniform, keys: 1, hot_cache: )" +
                                 cache + R"(}
            write_hot:
              - call: {client: db, endpoint: write, key: uniform, keys: 1}
sources:
  readers: {client: app-readers, from: east, target: fanout.read_hot, rate: 1000/s, start: +1s}
  writers: {client: app-writers, from: east, target: fanout.write_hot, rate: )" +
                                 writes + R"(, start: +1s}
)");
  return w;
}
}  // namespace

TEST_CASE("fan-out composition: hotkey flags the bots' timelines at their nodes, coalesces the "
          "fleet's rows, and a hot read is served from the client's copy") {
  const char* db = "{host=east/timelines/0}";
  auto v = [db](const Ran& r, const std::string& name) { return r.value(name + db); };
  Ran r = run_scenario_text(hotkey_world("1s"));
  REQUIRE(r.result.invariants_hold());
  // Flagged: the two bots' timelines (from the fleet's rows) and key 0 (from the reads); key 0
  // is an ordinary user's timeline, so the fleet counts it as a false positive.
  CHECK(v(r, "scylla.hotkey_keys_flagged") == 3);
  CHECK(r.value("fanout.hotkey_bots_flagged{host=east/fleet/0}") == 2);
  CHECK(r.value("fanout.hotkey_false_positives{host=east/fleet/0}") == 1);
  // Every fleet row went to its coordinator: written at once, or buffered and flushed once per
  // node and key per second (4 nodes x 2 bots at most per flush, 59 flushes at most).
  const double rows = r.value("fanout.delivered{class=hyper,host=east/fleet/0}");
  const double coalesced = v(r, "scylla.hotkey_coalesced_rows");
  const double batches = v(r, "scylla.hotkey_batches");
  CHECK(coalesced + v(r, "scylla.hotkey_direct_rows") == rows);
  CHECK(coalesced > 0);
  CHECK(batches > 0);
  CHECK(batches <= 8 * 60);
  CHECK(coalesced > 50 * batches);  // ~1,000 rows/s per bot, spread over its 3 replicas' nodes
  // A buffered row waits for the next flush: uniform over the 1 s interval.
  const double delay_s = v(r, "scylla.hotkey_coalesce_delay_mean_ns") / 1e9;
  CHECK(delay_s > 0.4);
  CHECK(delay_s < 0.6);
  CHECK(v(r, "scylla.hotkey_coalesce_delay_p99_ns") <= 1e9);
  // Each read is answered by the copy or by the cluster; once key 0 is hot, the copy answers
  // nearly all of them (the cluster sees one read per TTL, and a few until the node's next
  // sample marks the key again).
  const double hits = r.value("call.hot_cache_hits{client=db,host=east/fanout/0}");
  CHECK(hits == v(r, "scylla.hotkey_cache_hits"));
  auto& m = r.run->metrics();
  const double asked = m.histogram("scylla.read_latency_ns", {{"host", "east/timelines/0"}}).count();
  const double served = r.value("handler.ok{handler=read_hot,host=east/fanout/0}") +
                        r.value("handler.failed{handler=read_hot,host=east/fanout/0}");
  INFO("hits " << hits << ", reads sent " << asked << ", served " << served);
  CHECK(hits + asked == served);
  CHECK(hits > 0.3 * served);
  CHECK(v(r, "scylla.hotkey_stale_reads") == 0);  // nothing is written to key 0
  // With key 0 written at 50/s a copy is stale once a row lands after it was fetched: almost
  // every hit, each missing 50/s x the copy's age, ~0.5 s on average over the 1 s TTL.
  Ran written = run_scenario_text(hotkey_world("1s", "50/s"));
  const double whits = written.value("call.hot_cache_hits{client=db,host=east/fanout/0}");
  const double stale = v(written, "scylla.hotkey_stale_reads");
  REQUIRE(whits > 1000);
  CHECK(stale > 0.9 * whits);
  const double missed = v(written, "scylla.hotkey_stale_rows") / stale;
  INFO("rows missed per stale hit " << missed);
  CHECK(missed > 20);
  CHECK(missed < 31);
  // Without the client's cache every read reaches the cluster; the nodes flag the same keys.
  Ran uncached = run_scenario_text(hotkey_world("0s"));
  CHECK(uncached.value("call.hot_cache_hits{client=db,host=east/fanout/0}") == 0);
  CHECK(v(uncached, "scylla.hotkey_keys_flagged") == 3);
}

namespace {
// The fanout kind's growth workload (test_follow_growth.cpp) as parts: four growers from 1,500
// follows, 10 new follows/s each (a fast grower), every followee posting 0.02/s, the fleet
// lossy with its cache reloaded every REFRESH, 10 min; only the growers follow.
std::string growth_world(const std::string& refresh) {
  std::string w = small_world("true", "100", "lossy", "600s");
  w = replace(w, "bots: 2, bot_follows: 5k, graph_seed: 7}",
              "bots: 2, bot_follows: 5k, graph_seed: 7, growers: 4, grower_follows: 1500}");
  w = replace(w, "partitions: 21k}", "partitions: 21k, background_writes: 1k/s}");
  w = replace(w, "posts_per_followed_s: 0.01, min_follows: 4000,",
              "posts_per_followed_s: 0.02, min_follows: 4000, follow_events: 0/s, "
              "grower_follow_rate: 10/s, cache_refresh: " + refresh + ",");
  return w;
}

// The row-weighted mean of the cached factor for c(t) = 1,500 + 10 t, the cache reloaded every
// `period` (1 ms steps): what the fanout kind's test predicts (test_follow_growth.cpp).
double predicted_growth(double period_s) {
  double num = 0, den = 0;
  for (double t = 0; t < 600; t += 1e-3) {
    const double c = 1'500 + 10 * t;
    const double cached = 1'500 + 10 * std::floor(t / period_s) * period_s;
    num += c * (cached > 2'000 ? 2'000 / cached : 1.0);
    den += c;
  }
  return num / den;
}
}  // namespace

TEST_CASE("fan-out composition: the graph grows under the fleet; its growers get what the "
          "cache's lag predicts, and every instance's decisions are audited") {
  const char* fleet = "host=east/fleet/0";
  double delivered[3];
  const char* refreshes[3] = {"1s", "30s", "300s"};
  const double periods[3] = {1, 30, 300};
  for (int i = 0; i < 3; ++i) {
    Ran r = run_scenario_text(growth_world(refreshes[i]));
    REQUIRE(r.result.invariants_hold());
    // 4 growers x 10/s x 600 s of follows, Poisson.
    const double follows = r.value(std::string("fanout.follows_made{") + fleet + "}");
    CHECK(std::abs(follows - 24'000) < 5 * std::sqrt(24'000.0));
    delivered[i] = r.value(std::string("fanout.grower_delivered_fraction{") + fleet + "}");
    const double p = predicted_growth(periods[i]);
    INFO("refresh " << refreshes[i] << ": delivered " << delivered[i] << ", predicted " << p);
    CHECK(std::abs(delivered[i] - p) < 0.02);
    // Every grower row was a decision of the fleet's audited filter; a growing count is stale
    // between reloads.
    CHECK(r.value(std::string("fanout.stale_decisions{class=grower,") + fleet + "}") > 0);
    // The service's lossy_filter reads the same sorted set and is audited too (its metrics
    // exist: the celebrity's one post at +1 s, before any grower crossed the limit).
    CHECK(r.run->metrics().contains("fanout.stale_decisions{class=grower,host=east/fanout/0}"));
  }
  CHECK(delivered[0] < delivered[1]);
  CHECK(delivered[1] < delivered[2]);
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
                      Catch::Contains("lossy_filter narrows the page of a follower_pages"));
  }
  SECTION("hyper_detect: only on a page, only through a detector client to a hyper-detector") {
    const std::string det = detect_world("block");
    REQUIRE(errors_of(det) == "OK");
    auto outside = errors_of(replace(det, "            post:\n",
                                     "            post:\n              - hyper_detect: {client: det}\n"));
    CHECK_THAT(outside, Catch::Contains("hyper_detect narrows the page of a follower_pages"));
    auto through_graph = errors_of(replace(det, "hyper_detect: {client: det}",
                                           "hyper_detect: {client: graph}"));
    CHECK_THAT(through_graph, Catch::Contains("client 'graph' is not a detector client"));
    auto aimed = errors_of(replace(det, "{target: detector, driver: detector}",
                                   "{target: graph, driver: detector}"));
    CHECK_THAT(aimed, Catch::Contains("a detector client needs a hyper-detector service"));
    auto pooled = errors_of(replace(det, "{target: detector, driver: detector}",
                                    "{target: detector, driver: detector, timeout: 1s}"));
    CHECK_THAT(pooled, Catch::Contains("'timeout' does not apply to a detector client"));
    auto fleet = errors_of(replace(det, "detector: detector,", "detector: graph,"));
    CHECK_THAT(fleet, Catch::Contains("'graph' is a follow-graph service"));
  }
  SECTION("shard_queue: on a page, through a gocql client to a scylla service") {
    const std::string q = queue_world("2000/s");
    REQUIRE(errors_of(q) == "OK");
    auto outside = errors_of(replace(q, "            post:\n",
                                     "            post:\n              - shard_queue: {client: db}\n"));
    CHECK_THAT(outside, Catch::Contains("shard_queue queues the page of a follower_pages") &&
                            Catch::Contains("or in its place"));
    auto graph = errors_of(replace(q, "shard_queue: {client: db,", "shard_queue: {client: graph,"));
    CHECK_THAT(graph, Catch::Contains("client 'graph' is not a gocql client to a scylla service"));
    auto http = errors_of(replace(q, "{target: timelines, driver: gocql, rtt: 0s, timeout: 11s}",
                                  "{target: timelines, driver: net_http}"));
    CHECK_THAT(http, Catch::Contains("is not a gocql client to a scylla service"));
  }
  SECTION("hot_cache: a keyed read through a client to a scylla service running hot_keys") {
    const std::string hk = hotkey_world("1s");
    REQUIRE(errors_of(hk) == "OK");
    CHECK_THROWS_WITH(run_scenario_text(replace(hk, ", hot_keys: true}", "}")),
                      Catch::Contains("hot_cache at t.yaml:") &&
                          Catch::Contains("runs no hot-key detectors (set its hot_keys: true)"));
    CHECK_THROWS_WITH(
        run_scenario_text(replace(hk, "endpoint: read, key: uniform, keys: 1, hot_cache",
                                  "endpoint: read, hot_cache")),
        Catch::Contains("a cached read names its key"));
    CHECK_THROWS_WITH(
        run_scenario_text(replace(hk, "endpoint: read, key: uniform, keys: 1, hot_cache",
                                  "endpoint: write, key: uniform, keys: 1, hot_cache")),
        Catch::Contains("keeps replies to reads (endpoint: read), not 'write'"));
  }
  SECTION("one fleet runs a graph's growth") {
    std::string two = replace(ok, "      fanout:\n", R"(      fleet2:
        kind: fanout-fleet
        params: {graph: graph, cluster: timelines, bots_grow: true}
      fanout:
)");
    two = replace(two, "min_follows: 4000,", "min_follows: 4000, bots_grow: true,");
    CHECK_THROWS_WITH(run_scenario_text(two),
                      Catch::Contains("grows under another fanout-fleet already"));
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
    CHECK_THAT(e, Catch::Contains("tasks_from: page runs one goroutine per item of a page") &&
                      Catch::Contains("key: item names the follower"));
  }
  SECTION("a read_set's page is there for the steps after it, not before") {
    const std::string reads = on_read_world("10k");
    REQUIRE(errors_of(reads) == "OK");
    auto e = errors_of(replace(reads, "              - read_set: {client: graph, on_read_threshold: 10k}\n",
                               ""));
    CHECK_THAT(e, Catch::Contains("tasks_from: page runs one goroutine per item of a page"));
    auto f = errors_of(replace(reads, "read_set: {client: graph,", "read_set: {client: db,"));
    CHECK_THAT(f, Catch::Contains("client 'db' is not a graph client"));
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
