// Per-user price of lossy timelines, the 30 s follow-count cache, fan-out-on-read with hot-key
// caching, and shuffle sharding vs the token ring.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "fanout_fixtures.hpp"
#include "models/scylla/shuffle_shard.hpp"

using namespace fanout;

namespace {

// Author 0 followed by users 1..2000; users 1..40 spread evenly over the pages also follow
// 3,999 other accounts (4,000 follows each).
social::FollowGraph heavy_graph() {
  const std::uint32_t users = 6'000;
  std::vector<social::FollowEdge> e;
  for (social::UserId f = 1; f <= 2'000; ++f) {
    e.emplace_back(f, 0);
  }
  for (social::UserId h = 1; h <= 2'000; h += 50) {  // 40 heavy users, 2 per 100-user page
    for (social::UserId v = 2'001; v < 2'001 + 3'999; ++v) {
      e.emplace_back(h, v);
    }
  }
  return social::FollowGraph(users, std::move(e));
}

scylla::ScyllaConfig small_cluster() {
  scylla::ScyllaConfig c;
  c.nodes = 4;
  c.shards_per_node = 4;
  return c;
}

}  // namespace

TEST_CASE("a user following 4,000 with limit 2,000 gets about half its writes") {
  const social::FollowGraph g = heavy_graph();
  ExperimentSpec spec;
  spec.scylla = small_cluster();
  spec.fanout.policy = FanoutPolicy::Lossy;
  spec.fanout.page_size = 100;  // 20 pages per post
  spec.fanout.concurrency = 10;
  spec.posts = 200;
  spec.warmup = sim::kSecond;
  ExperimentResult r = run_experiment(g, spec);
  REQUIRE(r.posts.size() == 200);
  std::uint64_t heavy_delivered = 0;
  std::uint64_t heavy_offered = 0;
  for (social::UserId h = 1; h <= 2'000; h += 50) {
    CHECK(r.offered[h] == 200);
    // One page per post holds h, so its deliveries are Binomial(200, 0.5): sd ~7.1.
    CHECK(std::abs(static_cast<double>(r.delivered[h]) - 100.0) < 4 * std::sqrt(200 * 0.25));
    heavy_delivered += r.delivered[h];
    heavy_offered += r.offered[h];
  }
  // Two heavy users share each page and its single draw: the pair is dropped together, so the
  // bound for the total counts 20 draws per post of 2 users each, not 40 independent users.
  const double sd_correlated = std::sqrt(200.0 * 20 * 0.25 * 2 * 2);
  CHECK(std::abs(static_cast<double>(heavy_delivered) - 0.5 * heavy_offered) <
        4 * sd_correlated);
  // Users at or below the limit lose nothing.
  for (social::UserId u = 2; u <= 2'000; u += 50) {
    CHECK(r.delivered[u] == r.offered[u]);
  }
  std::printf("heavy users: %llu of %llu writes delivered (%.3f); light users: 1.000\n",
              (unsigned long long)heavy_delivered, (unsigned long long)heavy_offered,
              static_cast<double>(heavy_delivered) / static_cast<double>(heavy_offered));
}

TEST_CASE("follow counts reach the filter only at the next 30 s refresh") {
  const social::FollowGraph g = heavy_graph();
  sim::Simulation s(3);
  scylla::ScyllaCluster cluster(s, small_cluster(), FanoutService::partitions_needed(g));
  FanoutConfig cfg;
  cfg.policy = FanoutPolicy::Lossy;
  FanoutService svc(s, cluster, g, cfg);
  svc.start();
  CHECK(svc.follow_cache().follows(1) == 4'000);  // loaded at start
  CHECK(svc.follow_cache().follows(2) == 0);
  s.run_until(sim::kSecond);
  svc.store().zadd(2, 8'000);  // user 2 just mass-followed
  s.run_until(29 * sim::kSecond);
  CHECK(svc.follow_cache().follows(2) == 0);  // stale for up to 30 s
  s.run_until(31 * sim::kSecond);
  CHECK(svc.follow_cache().follows(2) == 8'000);
  CHECK(svc.follow_cache().loss_factor_of(2) == Approx(0.25));
  CHECK(svc.follow_cache().loads() == 2);
  svc.stop();
}

TEST_CASE("fan-out-on-read: no write fan-out for celebrities, readers pay; hot-key cache helps") {
  // Author 0 has 3,000 followers (a "celebrity" at threshold 1,000); author 1 has 10.
  std::vector<social::FollowEdge> e;
  for (social::UserId f = 2; f < 3'002; ++f) {
    e.emplace_back(f, 0);
  }
  for (social::UserId f = 2; f < 12; ++f) {
    e.emplace_back(f, 1);
  }
  const social::FollowGraph g(3'100, std::move(e));
  auto run = [&](bool hotkey_cache) {
    sim::Simulation s(4);
    scylla::ScyllaCluster cluster(s, small_cluster(), FanoutService::partitions_needed(g));
    FanoutConfig cfg;
    cfg.policy = FanoutPolicy::OnRead;
    cfg.on_read_threshold = 1'000;
    cfg.hotkey_cache = hotkey_cache;
    cfg.hotkey = {1, 100, 0.05};  // small window so a test sees it trigger
    FanoutService svc(s, cluster, g, cfg);
    PostReport celeb;
    PostReport normal;
    svc.post(0, [&](const PostReport& r) { celeb = r; });
    svc.post(1, [&](const PostReport& r) { normal = r; });
    s.run();
    CHECK(celeb.on_read);
    CHECK(celeb.written == 0);
    CHECK(normal.written == 10);
    std::uint64_t db_reads = 0;
    std::uint64_t hits = 0;
    for (int round = 0; round < 5; ++round) {
      for (social::UserId reader = 2; reader < 402; ++reader) {
        svc.read_timeline(reader, [&](const ReadReport& r) {
          db_reads += r.db_reads;
          hits += r.cache_hits;
        });
      }
      s.run_until(s.now() + 100 * sim::kMillisecond);
    }
    return std::pair{db_reads, hits};
  };
  auto [reads_plain, hits_plain] = run(false);
  CHECK(reads_plain == 2 * 2'000);  // own timeline + the celebrity's posts, every time
  CHECK(hits_plain == 0);
  auto [reads_cached, hits_cached] = run(true);
  CHECK(hits_cached > 1'000);  // the celebrity's list is hot: served locally within the TTL
  CHECK(reads_cached + hits_cached == 2 * 2'000);
}

TEST_CASE("shuffle sharding: tenants sharing every shard with a hot tenant, vs 1/C(n,k)") {
  // 8 nodes x 4 shards, RF 3: 100,000 tenants (timeline partitions).
  sim::Simulation s(5);
  scylla::ScyllaConfig cfg;
  cfg.nodes = 8;
  cfg.shards_per_node = 4;
  const std::uint32_t tenants = 100'000;
  auto full_overlap = [&](scylla::Placement placement) {
    cfg.placement = placement;
    scylla::ScyllaCluster c(s, cfg, tenants);
    std::map<std::vector<scylla::ShardId>, std::uint32_t> by_set;
    std::vector<std::vector<scylla::ShardId>> sets(tenants);
    for (std::uint32_t t = 0; t < tenants; ++t) {
      const scylla::ShardId* r = c.replicas(t);
      sets[t].assign(r, r + 3);
      std::sort(sets[t].begin(), sets[t].end());
      ++by_set[sets[t]];
    }
    // Every tenant in turn is the hot one; average the others fully inside its set.
    double sum = 0;
    for (std::uint32_t t = 0; t < tenants; ++t) {
      sum += by_set[sets[t]] - 1;
    }
    return sum / tenants;
  };
  const double ring = full_overlap(scylla::Placement::TokenRing);
  const double shuffle = full_overlap(scylla::Placement::ShuffleShard);
  const double expected = (tenants - 1) / scylla::choose(32, 3);  // 4,960 combinations
  std::printf("tenants fully sharing a hot tenant's shards: token ring %.1f, shuffle %.1f, "
              "1/C(32,3) predicts %.1f\n",
              ring, shuffle, expected);
  CHECK(shuffle == Approx(expected).epsilon(0.15));
  CHECK(ring > 10 * shuffle);  // same core on the same node trio: far more shared fate
}

TEST_CASE("fan-out-on-read: the read path pays, in partitions read and in latency") {
  // Author 0 has 3,000 followers (on read at threshold 1,000); readers 2..401 follow it.
  std::vector<social::FollowEdge> e;
  for (social::UserId f = 2; f < 3'002; ++f) {
    e.emplace_back(f, 0);
  }
  const social::FollowGraph g(3'100, std::move(e));
  auto run = [&](FanoutPolicy policy) {
    sim::Simulation s(6);
    scylla::ScyllaCluster cluster(s, small_cluster(), FanoutService::partitions_needed(g));
    FanoutConfig cfg;
    cfg.policy = policy;
    cfg.on_read_threshold = 1'000;  // ignored by Full
    FanoutService svc(s, cluster, g, cfg);
    PostReport post;
    svc.post(0, [&](const PostReport& r) { post = r; });
    s.run();
    for (social::UserId reader = 2; reader < 402; ++reader) {
      svc.read_timeline(reader);
      s.run_until(s.now() + sim::kMillisecond);  // one read at a time: no queueing between them
    }
    s.run();
    return std::tuple{post, svc.read_db_reads().mean(), svc.read_latency().mean(),
                      svc.timeline_writes(), svc.list_writes()};
  };
  auto [full_post, full_reads, full_read_ns, full_writes, full_lists] = run(FanoutPolicy::Full);
  auto [or_post, or_reads, or_read_ns, or_writes, or_lists] = run(FanoutPolicy::OnRead);
  CHECK_FALSE(full_post.on_read);
  CHECK(full_writes == 3'000);
  CHECK(full_lists == 0);
  CHECK(full_reads == Approx(1.0));
  CHECK(or_post.on_read);
  CHECK(or_writes == 0);   // no follower timeline written...
  CHECK(or_lists == 1);    // ...only the author's recent-post list
  CHECK(or_post.duration < full_post.duration / 10);
  CHECK(or_reads == Approx(2.0));  // every reader also reads the celebrity's list
  // Two reads in parallel end with the slower: with exponential service the expected maximum
  // of two exceeds one draw.
  CHECK(or_read_ns > full_read_ns);
  std::printf("on_read vs full: post %.2f ms vs %.2f ms, timeline writes %llu vs %llu, reads "
              "per timeline read %.1f vs %.1f, read latency %.0f us vs %.0f us\n",
              or_post.duration / 1e6, full_post.duration / 1e6, (unsigned long long)or_writes,
              (unsigned long long)full_writes, or_reads, full_reads, or_read_ns / 1e3,
              full_read_ns / 1e3);
}

TEST_CASE("policy names round-trip; on_read without a threshold is rejected") {
  for (auto p : {FanoutPolicy::Full, FanoutPolicy::Lossy, FanoutPolicy::OnRead,
                 FanoutPolicy::LossyOnRead, FanoutPolicy::PerShard, FanoutPolicy::Split,
                 FanoutPolicy::ShardQueue, FanoutPolicy::DetectBlock, FanoutPolicy::DetectLimit,
                 FanoutPolicy::ShuffleRetry, FanoutPolicy::HotKey}) {
    CHECK(parse_fanout_policy(policy_name(p)) == p);
  }
  CHECK_THROWS_WITH(parse_fanout_policy("onread"),
                    Catch::Contains("full, lossy, on_read, lossy_on_read, per_shard, split, "
                                    "shard_queue, detect_block, detect_limit, shuffle_retry or "
                                    "hotkey"));
  FanoutConfig cfg;
  cfg.policy = FanoutPolicy::OnRead;
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("on_read_threshold"));
  cfg.on_read_threshold = 1;
  CHECK_NOTHROW(cfg.validate());
}
