// per_shard (models/fanout/policies/per_shard.cpp): a celebrity's post is written once per shard
// that holds a follower, and the readers pay at read time -- one more partition per timeline
// load, and rows scanned to filter the inbox down to the authors they follow.
#include <catch2/catch.hpp>
#include <cstdio>
#include <set>

#include "fanout_fixtures.hpp"

using namespace fanout;

namespace {

// Authors 0 and 1: 3,000 followers each (0: users 2..3,001; 1: users 1,002..4,001), both above
// the threshold of 1,000. Readers 2..401 follow author 0 only; 1,002..1,401 follow both.
social::FollowGraph two_celebrities() {
  std::vector<social::FollowEdge> e;
  for (social::UserId f = 2; f < 3'002; ++f) {
    e.emplace_back(f, 0);
  }
  for (social::UserId f = 1'002; f < 4'002; ++f) {
    e.emplace_back(f, 1);
  }
  return social::FollowGraph(5'000, std::move(e));
}

struct Costs {
  PostReport post;
  std::uint64_t list_writes = 0;
  std::uint64_t timeline_writes = 0;
  double reads_one = 0;  // partitions per load, readers following author 0 only
  double rows_one = 0;   // rows scanned per load, same readers
  double rows_both = 0;  // rows scanned per load, readers following both
};

Costs run(FanoutPolicy policy) {
  const social::FollowGraph g = two_celebrities();
  sim::Simulation s(8);
  scylla::ScyllaConfig sc;
  sc.nodes = 4;
  sc.shards_per_node = 4;
  scylla::ScyllaCluster cluster(s, sc, FanoutService::partitions_needed(g));
  FanoutConfig cfg;
  cfg.policy = policy;
  cfg.on_read_threshold = 1'000;
  FanoutService svc(s, cluster, g, cfg);
  Costs c;
  svc.post(0, [&](const PostReport& r) { c.post = r; });
  s.run_until(s.now() + sim::kSecond);
  c.list_writes = svc.list_writes();
  c.timeline_writes = svc.timeline_writes();
  auto load = [&](social::UserId from, double& reads, double& rows) {
    std::uint64_t db = 0;
    std::uint64_t scanned = 0;
    for (social::UserId r = from; r < from + 400; ++r) {
      svc.read_timeline(r, [&](const ReadReport& rr) {
        db += rr.db_reads;
        scanned += rr.rows_read;
      });
      s.run_until(s.now() + sim::kMillisecond);
    }
    s.run_until(s.now() + sim::kSecond);
    reads = db / 400.0;
    rows = scanned / 400.0;
  };
  double unused = 0;
  load(2, c.reads_one, c.rows_one);
  load(1'002, unused, c.rows_both);
  return c;
}

}  // namespace

TEST_CASE("per_shard writes once per shard and pays at read: a partition and the filter's rows") {
  const Costs ps = run(FanoutPolicy::PerShard);
  const Costs on_read = run(FanoutPolicy::OnRead);
  const Costs full = run(FanoutPolicy::Full);
  // Post write: 3,000 followers on 16 shards -> one inbox write per shard, no timeline row.
  CHECK(ps.post.on_read);
  CHECK(ps.timeline_writes == 0);
  CHECK(ps.list_writes == 16);
  CHECK(on_read.list_writes == 1);
  CHECK(full.timeline_writes == 3'000);
  // Read: own timeline + the shard's inbox.
  CHECK(ps.reads_one == Approx(2.0));
  CHECK(full.reads_one == Approx(1.0));
  // Filter at read: every shard's inbox holds both authors (their followers are on every
  // shard), so a reader following one scans 2 x 50 rows there, one following both 50 + 50.
  CHECK(ps.rows_one == Approx(50 + 100));
  CHECK(ps.rows_both == Approx(50 + 50));
  CHECK(on_read.rows_one == Approx(50 + 50));   // on_read reads each list, no filter
  CHECK(on_read.rows_both == Approx(50 + 100));  // ...one list per followed author
  std::printf("per_shard: %llu inbox writes for 3,000 followers, %.1f partitions and %.0f rows "
              "per load (one author followed), %.0f (both); on_read %.0f / %.0f rows; full %llu "
              "timeline writes\n",
              (unsigned long long)ps.list_writes, ps.reads_one, ps.rows_one, ps.rows_both,
              on_read.rows_one, on_read.rows_both, (unsigned long long)full.timeline_writes);
}
