// shuffle_retry (policies/shuffle_retry.cpp): every timeline on its own shuffle set of RF shards,
// and a read still short of its CL replies after retry_after also asks the set's remaining
// replica. Claim (domain.md §8.4): a hot tenant hurts only those who share its shards, and a
// client that retries on the other members of its set escapes it. Cost: the extra reads.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>

#include "fanout_fixtures.hpp"

using namespace fanout;

namespace {

struct Reads {
  sim::Histogram latency;
  std::uint64_t retries = 0;
  std::uint64_t reads = 0;
  std::uint64_t slow = 0;            // reads slower than 50 ms
  std::uint64_t share_two = 0;       // readers whose replicas include >= 2 of the hot timeline's
  std::uint64_t slow_share_two = 0;  // ... of them, slow
  std::uint64_t share_one = 0;       // readers with exactly one hot replica
};

// 4,000 timelines on 16 shards; partition 0's timeline is written by the fleet at `hot_rate`
// rows/s (a hyper-follower's), so its replica shards are busy; every user reads its timeline.
Reads run(FanoutPolicy p, double hot_rate) {
  const social::FollowGraph g(4'000, {});
  sim::Simulation s(31);
  scylla::ScyllaConfig sc;
  sc.nodes = 4;
  sc.shards_per_node = 4;
  FanoutConfig cfg;
  cfg.policy = p;
  configure_cluster_for(p, cfg.retry_after, sc);
  scylla::ScyllaCluster cluster(s, sc, FanoutService::partitions_needed(g, cfg));
  cluster.add_background_partition(0, hot_rate);
  FanoutService svc(s, cluster, g, cfg);
  s.run_until(5 * sim::kSecond);  // the hot partition grows and its shards queue
  Reads r;
  const scylla::ShardId* h = cluster.replicas(0);
  const std::vector<scylla::ShardId> hot_set(h, h + sc.rf);
  for (social::UserId u = 1; u < g.users(); ++u) {
    const scylla::ShardId* rep = cluster.replicas(u);
    std::uint32_t shared = 0;
    for (std::uint32_t i = 0; i < sc.rf; ++i) {
      shared += std::count(hot_set.begin(), hot_set.end(), rep[i]) > 0 ? 1 : 0;
    }
    const bool two = shared >= 2;  // QUORUM cannot be met without a hot replica
    r.share_two += two ? 1 : 0;
    r.share_one += shared == 1 ? 1 : 0;
    svc.read_timeline(u, [&r, two](const ReadReport& rr) {
      r.latency.record(rr.latency);
      ++r.reads;
      const bool slow = rr.latency > 50 * sim::kMillisecond;
      r.slow += slow ? 1 : 0;
      r.slow_share_two += slow && two ? 1 : 0;
    });
    s.run_until(s.now() + sim::kMillisecond);
  }
  s.run_until(s.now() + 10 * sim::kSecond);
  r.retries = cluster.speculative_reads();
  return r;
}

}  // namespace

TEST_CASE(
    "shuffle_retry: readers sharing a hot shard escape through the retry, at the cost of "
    "extra reads") {
  FanoutConfig bad;
  bad.policy = FanoutPolicy::ShuffleRetry;
  {
    const social::FollowGraph g(100, {});
    sim::Simulation s(1);
    scylla::ScyllaConfig sc;  // token ring, no retry: refused
    sc.nodes = 4;
    sc.shards_per_node = 4;
    scylla::ScyllaCluster cluster(s, sc, FanoutService::partitions_needed(g));
    CHECK_THROWS_WITH(FanoutService(s, cluster, g, bad), Catch::Contains("shuffle_shard"));
  }
  const double hot = 6'000;  // rows/s into partition 0: its shards' reads wait ~0.5 s
  const Reads full = run(FanoutPolicy::Full, hot);
  const Reads sr = run(FanoutPolicy::ShuffleRetry, hot);
  REQUIRE(full.reads == 3'999);
  REQUIRE(sr.reads == 3'999);
  std::printf(
      "shuffle_retry vs full with one hot timeline: read P99 %.2f vs %.2f ms, P99.9 %.1f "
      "vs %.1f ms, max %.1f vs %.1f ms; retries %llu (%.3f per read)\n",
      sr.latency.quantile(0.99) / 1e6, full.latency.quantile(0.99) / 1e6,
      sr.latency.quantile(0.999) / 1e6, full.latency.quantile(0.999) / 1e6, sr.latency.max() / 1e6,
      full.latency.max() / 1e6, (unsigned long long)sr.retries,
      static_cast<double>(sr.retries) / sr.reads);
  std::printf(
      "  slow (> 50 ms) reads: shuffle_retry %llu, of them sharing >= 2 hot shards %llu "
      "(%llu readers share >= 2); full %llu (%llu share >= 2)\n",
      (unsigned long long)sr.slow, (unsigned long long)sr.slow_share_two,
      (unsigned long long)sr.share_two, (unsigned long long)full.slow,
      (unsigned long long)full.share_two);
  std::printf("  of %llu readers with one hot replica, %.2f stay slow (coordinator on it)\n",
              (unsigned long long)sr.share_one,
              static_cast<double>(sr.slow - sr.slow_share_two) / sr.share_one);
  CHECK(full.retries == 0);
  CHECK(sr.retries > 0);             // the cost column
  CHECK(sr.retries < sr.reads / 2);  // only the reads held back retry
  // Shuffle sharding: far fewer timelines share >= 2 of the hot one's 3 shards than on the
  // ring (whose replica sets are consecutive nodes); C(16,3) = 560 sets, 40 of them share >= 2.
  CHECK(sr.share_two * 2 < full.share_two);
  CHECK(static_cast<double>(sr.share_two) / sr.reads == Approx(40.0 / 560).margin(0.03));
  // Those cannot meet QUORUM without a hot replica: all slow, retry or not.
  CHECK(sr.slow_share_two == sr.share_two);
  CHECK(full.slow_share_two == full.share_two);
  CHECK(sr.slow < full.slow);
  // The retry is the coordinator's (one more replica asked), so it cannot rescue a read whose
  // coordinator -- a random replica -- is the hot shard: ~1/3 of the one-hot-replica readers
  // stay slow. A client retry to another coordinator would be needed for them.
  const double stuck = static_cast<double>(sr.slow - sr.slow_share_two) / sr.share_one;
  CHECK(stuck > 0.2);
  CHECK(stuck < 0.45);
  CHECK(sr.latency.quantile(0.99) < full.latency.quantile(0.99));
}
