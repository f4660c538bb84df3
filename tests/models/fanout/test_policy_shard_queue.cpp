// shard_queue (models/fanout/shard_queue.hpp, policies/shard_queue.cpp): the fan-out queue is
// partitioned by shard, each lane rate-limited, and a page is fetched as soon as the previous
// one is queued. Claim (the write-up's discussion): page fetches no longer wait for the page's
// slowest write, and a slow shard holds back only its own lane. Cost: the writes' queueing
// delay, measured per write.
#include <catch2/catch.hpp>
#include <cstdio>

#include "fanout_fixtures.hpp"

using namespace fanout;

namespace {

// Author 0 followed by users 1..3,000.
social::FollowGraph one_author() {
  std::vector<social::FollowEdge> e;
  for (social::UserId f = 1; f <= 3'000; ++f) {
    e.emplace_back(f, 0);
  }
  return social::FollowGraph(6'000, std::move(e));
}

struct Run {
  PostReport post;
  std::vector<FanoutService::PageRecord> pages;
  sim::Histogram delay;
  std::uint64_t max_depth = 0;
  std::uint64_t written = 0;
};

Run run(FanoutPolicy p) {
  const social::FollowGraph g = one_author();
  sim::Simulation s(11);
  scylla::ScyllaConfig sc;
  sc.nodes = 4;
  sc.shards_per_node = 4;
  scylla::ScyllaCluster cluster(s, sc, FanoutService::partitions_needed(g));
  FanoutConfig cfg;
  cfg.policy = p;
  cfg.page_size = 100;  // 30 pages
  cfg.concurrency = 10;
  cfg.shard_queue.rate_per_s = 1'000;  // ~187 writes per shard lane -> ~0.19 s to drain
  cfg.shard_queue.in_flight = 4;
  FanoutService svc(s, cluster, g, cfg);
  Run r;
  svc.post(0, [&](const PostReport& pr) { r.post = pr; });
  s.run_until(s.now() + 10 * sim::kSecond);
  r.pages = svc.page_log();
  r.written = svc.timeline_writes();
  if (svc.shard_queue() != nullptr) {
    r.delay = svc.shard_queue()->delay();
    r.max_depth = svc.shard_queue()->max_depth();
  }
  return r;
}

}  // namespace

TEST_CASE(
    "shard_queue: pages are fetched without waiting for their writes; writes wait in their "
    "shard's lane") {
  const Run q = run(FanoutPolicy::ShardQueue);
  const Run full = run(FanoutPolicy::Full);
  REQUIRE(q.pages.size() == 30);
  REQUIRE(full.pages.size() == 30);
  CHECK(q.written == 3'000);  // every follower, as under full
  CHECK(q.post.written == 3'000);
  sim::Time q_last_start = 0;
  sim::Time full_last_start = 0;
  for (const auto& p : q.pages) q_last_start = std::max(q_last_start, p.start);
  for (const auto& p : full.pages) full_last_start = std::max(full_last_start, p.start);
  // 30 page fetches of 1 ms each, back to back: the last page is queued at ~30 ms...
  CHECK(q_last_start <= 31 * sim::kMillisecond);
  // ...while under full each page starts after the previous page's slowest write.
  CHECK(full_last_start > q_last_start + 10 * sim::kMillisecond);
  // The cost: 3,000 writes over 16 lanes at 1,000/s each (burst 4) wait in their lanes; the
  // post ends when the fullest lane drains (~187 writes -> ~0.19 s).
  CHECK(q.delay.count() == 3'000);
  CHECK(q.delay.quantile(0.99) > 100 * sim::kMillisecond);
  CHECK(q.delay.mean() > 10 * sim::kMillisecond);
  CHECK(q.max_depth > 100);
  CHECK(q.post.duration > 150 * sim::kMillisecond);
  CHECK(q.post.duration < 400 * sim::kMillisecond);
  std::printf(
      "shard_queue: last page queued at %.1f ms (full: %.1f ms); queue delay mean %.1f ms "
      "P99 %.1f ms, deepest lane %llu; post %.0f ms (full %.0f ms)\n",
      q_last_start / 1e6, full_last_start / 1e6, q.delay.mean() / 1e6, q.delay.quantile(0.99) / 1e6,
      (unsigned long long)q.max_depth, q.post.duration / 1e6, full.post.duration / 1e6);
}

TEST_CASE("shard_queue at the flare: the hot shards hold back only their own lanes", FANOUT_HEAVY) {
  const auto& g = fanout_test::celebrity_graph();
  auto spec = [&](FanoutPolicy p) { return fanout_test::flare_spec(g, p); };
  const ExperimentResult full = run_experiment(g, spec(FanoutPolicy::Full));
  const ExperimentResult q = run_experiment(g, spec(FanoutPolicy::ShardQueue));
  // Share of the post's writes answered within 1 s of the post: the cool shards' lanes.
  std::printf(
      "shard_queue vs full at the flare: post %.1f s vs %.1f s, write P99 %.0f vs %.0f ms, "
      "delivered %.4f vs %.4f, hot shards %u vs %u\n",
      q.post_duration.max() / 1e9, full.post_duration.max() / 1e9,
      q.write_latency.quantile(0.99) / 1e6, full.write_latency.quantile(0.99) / 1e6,
      q.delivery.writes_fraction, full.delivery.writes_fraction, q.hot_shards_during,
      full.hot_shards_during);
  CHECK(q.post_duration.max() < full.post_duration.max() / 4);
  // It does not remove the hot shards: every bot row is still written.
  CHECK(q.hot_shards_during >= 6);
  CHECK(q.background_delivered == q.background_offered);
}
