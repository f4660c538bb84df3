// lossy_on_read (models/fanout/policies/lossy_on_read.cpp): the celebrity is merged at read
// time as under on_read (reads pay), and every other post goes through the lossy filter as
// under lossy (the hyper-followers pay). Each cost is checked against the single policies.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <functional>

#include "fanout_fixtures.hpp"

using namespace fanout;

namespace {

// Author 0: 3,000 followers (2..3,001), above the on-read threshold of 2,500. Author 1: 2,000
// followers (2..2,001), below it. Users 2, 52, ..., 1,952 (40, two per 100-follower page) also follow
// 3,999 others: 4,001 follows, loss factor 2,000 / 4,001.
social::FollowGraph two_author_graph() {
  std::vector<social::FollowEdge> e;
  for (social::UserId f = 2; f < 3'002; ++f) {
    e.emplace_back(f, 0);
  }
  for (social::UserId f = 2; f < 2'002; ++f) {
    e.emplace_back(f, 1);
  }
  for (social::UserId h = 2; h < 2'002; h += 50) {
    for (social::UserId v = 4'001; v < 4'001 + 3'999; ++v) {
      e.emplace_back(h, v);
    }
  }
  return social::FollowGraph(8'000, std::move(e));
}

struct Costs {
  PostReport celebrity;
  std::uint64_t heavy_offered = 0;
  std::uint64_t heavy_delivered = 0;
  std::uint64_t light_offered = 0;
  std::uint64_t light_delivered = 0;
  double reads_per_load = 0;
  std::uint64_t list_writes = 0;
};

Costs run(FanoutPolicy policy) {
  const social::FollowGraph g = two_author_graph();
  sim::Simulation s(7);
  scylla::ScyllaConfig sc;
  sc.nodes = 4;
  sc.shards_per_node = 4;
  scylla::ScyllaCluster cluster(s, sc, FanoutService::partitions_needed(g));
  FanoutConfig cfg;
  cfg.policy = policy;
  cfg.on_read_threshold = 2'500;  // author 0 only
  cfg.page_size = 100;
  cfg.concurrency = 10;
  FanoutService svc(s, cluster, g, cfg);
  svc.start();
  Costs c;
  svc.post(0, [&](const PostReport& r) { c.celebrity = r; });
  s.run_until(s.now() + sim::kSecond);
  // 200 posts by author 1, one after the other.
  int left = 200;
  std::function<void(const PostReport&)> next = [&](const PostReport&) {
    if (--left > 0) {
      svc.post(1, next);
    }
  };
  svc.post(1, next);
  s.run_until(s.now() + 120 * sim::kSecond);
  REQUIRE(left == 0);
  for (social::UserId reader = 2; reader < 402; ++reader) {
    svc.read_timeline(reader);
    s.run_until(s.now() + sim::kMillisecond);
  }
  s.run_until(s.now() + sim::kSecond);
  svc.stop();
  for (social::UserId u = 2; u < 2'002; ++u) {
    const bool heavy = (u - 2) % 50 == 0;
    (heavy ? c.heavy_offered : c.light_offered) += svc.offered(u);
    (heavy ? c.heavy_delivered : c.light_delivered) += svc.delivered(u);
  }
  c.reads_per_load = svc.read_db_reads().mean();
  c.list_writes = svc.list_writes();
  return c;
}

}  // namespace

TEST_CASE("lossy_on_read pays on reads for the celebrity and in the heavy users' timelines") {
  const Costs lor = run(FanoutPolicy::LossyOnRead);
  const Costs lossy = run(FanoutPolicy::Lossy);
  const Costs on_read = run(FanoutPolicy::OnRead);
  // Post write: the celebrity writes one list row, as under on_read; nothing fanned out.
  CHECK(lor.celebrity.on_read);
  CHECK(lor.celebrity.written == 0);
  CHECK(lor.list_writes == 1);
  CHECK(on_read.list_writes == 1);
  CHECK(lossy.list_writes == 0);
  CHECK(lossy.celebrity.written > 2'900);  // fanned out; only the 40 heavy users thinned
  // Timeline read: every reader follows the celebrity, so reads 2 partitions (on_read's cost).
  CHECK(lor.reads_per_load == Approx(2.0));
  CHECK(on_read.reads_per_load == Approx(2.0));
  CHECK(lossy.reads_per_load == Approx(1.0));
  // Author 1's 200 posts: the heavy users (factor ~0.5) lose about half under both lossy
  // policies (each heavy user on one page per post: Binomial(200, 0.5) each; two share a page's
  // draw, so the 40 users' total has sd sqrt(200 x 20 x 0.25 x 4) = 63), nothing under on_read.
  // Under lossy the celebrity's post adds one offer per heavy user.
  CHECK(lor.heavy_offered == 40 * 200);
  const double sd = std::sqrt(200.0 * 20 * 0.25 * 4);
  CHECK(std::abs(static_cast<double>(lor.heavy_delivered) - 0.4999 * 8'000) < 4 * sd);
  CHECK(std::abs(static_cast<double>(lossy.heavy_delivered) - 0.4999 * 8'040) < 4 * sd);
  CHECK(on_read.heavy_delivered == on_read.heavy_offered);
  CHECK(lor.light_delivered == lor.light_offered);
  CHECK(lor.light_offered == 1'960 * 200);
  std::printf("lossy_on_read: heavy users kept %llu of %llu, reads per load %.2f, list writes "
              "%llu; lossy: %llu of %llu, %.2f; on_read: %llu of %llu, %.2f\n",
              (unsigned long long)lor.heavy_delivered, (unsigned long long)lor.heavy_offered,
              lor.reads_per_load, (unsigned long long)lor.list_writes,
              (unsigned long long)lossy.heavy_delivered,
              (unsigned long long)lossy.heavy_offered, lossy.reads_per_load,
              (unsigned long long)on_read.heavy_delivered,
              (unsigned long long)on_read.heavy_offered, on_read.reads_per_load);
}
