// split (models/fanout/policies/split.cpp): a timeline split per 1,000 follows into
// sub-timelines, each its own partition, merged at read. Claim (the write-up's discussion): a
// hyper-follower's writes spread over its parts' shards instead of heating one; cost: every
// load of a split timeline reads and merges all its parts.
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <set>

#include "fanout_fixtures.hpp"

using namespace fanout;

namespace {

// User 0 follows 5,000 accounts (5 parts), user 1 follows 10 (1 part), user 2 follows 1,001
// (2 parts).
social::FollowGraph split_graph() {
  std::vector<social::FollowEdge> e;
  for (social::UserId v = 100; v < 5'100; ++v) {
    e.emplace_back(0, v);
  }
  for (social::UserId v = 100; v < 110; ++v) {
    e.emplace_back(1, v);
  }
  for (social::UserId v = 100; v < 1'101; ++v) {
    e.emplace_back(2, v);
  }
  return social::FollowGraph(12'000, std::move(e));
}

scylla::ScyllaConfig small_cluster() {
  scylla::ScyllaConfig c;
  c.nodes = 4;
  c.shards_per_node = 4;
  return c;
}

struct ReadCost {
  std::uint32_t db_reads = 0;
  std::uint32_t rows = 0;
  std::uint32_t merged = 0;
};

ReadCost read_once(FanoutService& svc, sim::Simulation& s, social::UserId reader) {
  ReadCost c;
  svc.read_timeline(reader, [&](const ReadReport& r) {
    c.db_reads = r.db_reads;
    c.rows = r.rows_read;
    c.merged = r.merged;
  });
  s.run_until(s.now() + sim::kSecond);
  return c;
}

}  // namespace

TEST_CASE("split: a user's timeline is one partition per 1,000 follows, merged at read") {
  const social::FollowGraph g = split_graph();
  CHECK(split_parts(5'000, 1'000) == 5);
  CHECK(split_parts(1'000, 1'000) == 1);
  CHECK(split_parts(1'001, 1'000) == 2);
  CHECK(split_parts(0, 1'000) == 1);
  FanoutConfig cfg;
  cfg.policy = FanoutPolicy::Split;
  CHECK(FanoutService::partitions_needed(g, cfg) == 2 * 12'000 + 4 + 1);
  sim::Simulation s(5);
  scylla::ScyllaCluster cluster(s, small_cluster(), FanoutService::partitions_needed(g, cfg));
  FanoutService svc(s, cluster, g, cfg);
  // Write path: user 0's 5,000 followees' posts land on its 5 parts about evenly.
  std::map<std::uint32_t, std::uint32_t> per_part;
  for (social::UserId a = 100; a < 5'100; ++a) {
    ++per_part[svc.policy().timeline_partition(0, a)];
  }
  REQUIRE(per_part.size() == 5);
  std::set<scylla::ShardId> shards;
  for (const auto& [p, n] : per_part) {
    CHECK(n > 800);  // 1,000 expected; Binomial(5,000, 0.2) sd ~28
    CHECK(n < 1'200);
    shards.insert(cluster.replicas(p)[0]);
  }
  CHECK(shards.size() >= 3);  // the parts are on different shards (5 of 16, by the ring)
  CHECK(svc.policy().timeline_partition(1, 105) == 1);  // unsplit users keep one partition
  // Read path, the cost: the hyper-follower reads and merges all 5 parts, a page each.
  const ReadCost heavy = read_once(svc, s, 0);
  CHECK(heavy.db_reads == 5);
  CHECK(heavy.merged == 4);
  CHECK(heavy.rows == 5 * 50);
  const ReadCost two = read_once(svc, s, 2);
  CHECK(two.db_reads == 2);
  CHECK(two.merged == 1);
  const ReadCost light = read_once(svc, s, 1);
  CHECK(light.db_reads == 1);
  CHECK(light.merged == 0);
  // A post into a split follower's timeline is written to the part its author maps to.
  PostReport pr;
  svc.post(100, [&](const PostReport& r) { pr = r; });
  s.run_until(s.now() + sim::kSecond);
  CHECK(pr.written == 3);  // users 0, 1, 2 follow account 100
  std::printf(
      "split: 5,000 follows -> 5 parts on %zu shards; a load reads %u partitions, merges "
      "%u, scans %u rows (1,001 follows: %u / %u; 10 follows: %u / %u)\n",
      shards.size(), heavy.db_reads, heavy.merged, heavy.rows, two.db_reads, two.merged,
      light.db_reads, light.merged);
}

TEST_CASE("split at the flare: the bots' rows spread over 300 parts, no hot shard, none lost",
          FANOUT_HEAVY) {
  // The workload of test_lossy_vs_full.cpp's flare (2,250 rows/s into each bot's timeline).
  const auto& g = fanout_test::celebrity_graph();
  auto spec = [&](FanoutPolicy p) { return fanout_test::flare_spec(g, p); };
  const ExperimentResult full = run_experiment(g, spec(FanoutPolicy::Full));
  const ExperimentResult split = run_experiment(g, spec(FanoutPolicy::Split));
  std::printf(
      "split vs full at the flare: hot shards before %u vs %u, during %u vs %u; post "
      "%.2f s vs %.1f s; page P99 %.1f vs %.1f ms; steady write P99 %.2f vs %.1f ms\n",
      split.hot_shards_before, full.hot_shards_before, split.hot_shards_during,
      full.hot_shards_during, split.post_duration.max() / 1e9, full.post_duration.max() / 1e9,
      split.page_duration.quantile(0.99) / 1e6, full.page_duration.quantile(0.99) / 1e6,
      split.steady_write_latency.quantile(0.99) / 1e6,
      full.steady_write_latency.quantile(0.99) / 1e6);
  CHECK(full.hot_shards_during >= 6);
  CHECK(split.hot_shards_during == 0);  // the claim: no shard hosts a whole bot timeline
  CHECK(split.post_duration.max() < full.post_duration.max() / 10);
  // Nothing is dropped: every bot row is written (to some part), unlike lossy.
  CHECK(split.background_delivered == split.background_offered);
  CHECK(split.delivery.writes_fraction == 1.0);
}
