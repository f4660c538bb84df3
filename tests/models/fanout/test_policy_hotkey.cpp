// hotkey (policies/hotkey.cpp, models/fanout/hot_key_nodes.hpp): every request goes to a
// coordinator the client picks; each node runs components/hotkey's detector over the requests
// it coordinates; hot reads are served from the client's cache (stale hits counted), hot
// background rows are written as one coalesced write per node per interval. Nothing is flagged
// by hand: who is hot follows from the detector's rule (>= 1 % of the node's sampled requests).
#include <catch2/catch.hpp>
#include <cstdio>
#include <set>

#include "fanout_fixtures.hpp"
#include "models/fanout/background_posts.hpp"

using namespace fanout;

namespace {

// Background authors post at 0.1/s: user 0 follows 3,000 (300 rows/s into its timeline), user 1
// 1,500 (150/s), user 2 100 (10/s, a calm timeline). Everyone else is only read.
social::FollowGraph hotkey_graph() {
  std::vector<social::FollowEdge> e;
  for (social::UserId v = 100; v < 3'100; ++v) e.emplace_back(0, v);
  for (social::UserId v = 100; v < 1'600; ++v) e.emplace_back(1, v);
  for (social::UserId v = 100; v < 200; ++v) e.emplace_back(2, v);
  return social::FollowGraph(5'000, std::move(e));
}

// Timeline reads every `gap`: of a uniformly drawn user other than users 0-3, or always of
// `fixed`.
struct Reader final : sim::Handler {
  FanoutService* svc = nullptr;
  sim::Rng* rng = nullptr;
  sim::Duration gap = 0;
  std::int64_t fixed = -1;
  std::uint64_t hits = 0;
  void on_event(sim::Simulation& s) override {
    const auto u = fixed >= 0 ? static_cast<std::uint32_t>(fixed)
                              : static_cast<std::uint32_t>(rng->uniform_int(4, 4'999));
    svc->read_timeline(u, [this](const ReadReport& r) { hits += r.cache_hits; });
    s.schedule_in(gap, *this);
  }
};

struct Run {
  std::set<std::uint32_t> flagged;
  std::uint64_t ops_user0 = 0;  // statement ops on user 0's replica shards
  std::uint64_t delivered0 = 0, offered0 = 0;
  std::uint64_t coalesced = 0, batches = 0, cache_hits = 0, stale = 0, stale_rows = 0;
  std::uint64_t fixed_hits[2] = {0, 0};
  double delay_mean_s = 0, delay_p99_s = 0;
  std::uint64_t fingerprint = 0;
};

// 10,000 uniform reads/s dilute each node's requests so that user 2's 10 rows/s stay far below
// 1 % of them while user 0 (~3.8 %) and user 1 (~1.9 %) are above. The detector samples every
// 10th request over a window of 1,000 samples (the same 1 % rule as Pelikan's 100 / 10,000,
// scaled to this small cluster's request rate). `fixed_readers`: also read user 0 (written
// 300/s) and user 3 (never written) 200 times a second each.
// `uniform` false: no uniform reads (the nodes see only the background rows).
Run run(FanoutPolicy p, bool fixed_readers, std::uint64_t seed = 31, bool uniform_reads = true) {
  const social::FollowGraph g = hotkey_graph();
  sim::Simulation s(seed);
  scylla::ScyllaConfig sc;
  sc.nodes = 4;
  sc.shards_per_node = 4;
  scylla::ScyllaCluster cluster(s, sc, FanoutService::partitions_needed(g));
  FanoutConfig cfg;
  cfg.policy = p;
  cfg.hotkey = {10, 1'000, 0.01};
  FanoutService svc(s, cluster, g, cfg);
  svc.start();
  svc.install_hyperfollower_background(50, 0.1);
  Reader uniform;
  uniform.svc = &svc;
  uniform.rng = &s.stream("test/readers");
  uniform.gap = 100 * sim::kMicrosecond;
  uniform.actor_id = s.new_actor_id();
  if (uniform_reads) s.schedule_in(uniform.gap, uniform);
  Reader fixed[2];
  if (fixed_readers) {
    for (int i = 0; i < 2; ++i) {
      fixed[i].svc = &svc;
      fixed[i].fixed = i == 0 ? 0 : 3;
      fixed[i].gap = 5 * sim::kMillisecond;
      fixed[i].actor_id = s.new_actor_id();
      s.schedule_in(fixed[i].gap, fixed[i]);
    }
  }
  s.run_until(30 * sim::kSecond);
  Run r;
  const scylla::ShardId* rep = cluster.replicas(0);
  for (std::uint32_t i = 0; i < cluster.rf(); ++i) r.ops_user0 += cluster.statement_ops(rep[i]);
  r.delivered0 = svc.background()->delivered(0);
  r.offered0 = svc.background()->offered(0);
  r.fixed_hits[0] = fixed[0].hits;
  r.fixed_hits[1] = fixed[1].hits;
  if (const HotKeyNodes* n = svc.hot_key_nodes()) {
    for (const auto& [key, at] : n->flagged()) r.flagged.insert(key);
    r.coalesced = n->rows_coalesced();
    r.batches = n->batches();
    r.cache_hits = n->cache_hits();
    r.stale = n->stale_hits();
    r.stale_rows = n->stale_rows();
    r.delay_mean_s = n->coalesce_delay().mean() / 1e9;
    r.delay_p99_s = static_cast<double>(n->coalesce_delay().quantile(0.99)) / 1e9;
  }
  r.fingerprint = s.fingerprint();
  // The readers are handlers on this stack, destroyed before svc: discard their pending events
  // now, while they are alive (svc's destructor would otherwise shut down over dead handlers).
  s.shutdown();
  return r;
}

}  // namespace

TEST_CASE("hotkey: the nodes' detectors flag the hyper-followers' timelines, not calm ones") {
  const Run h = run(FanoutPolicy::HotKey, false);
  // Users 0 and 1 (300 and 150 rows/s) are hot at their coordinators; user 2 (10 rows/s) and
  // every uniformly read timeline (0.02 % of reads each) are not.
  CHECK(h.flagged == std::set<std::uint32_t>{0, 1});
  // Coalescing: every flagged key's rows after its flag go through a buffer, one write per node
  // per 1 s tick, each row waiting up to the interval (uniform arrivals: mean ~0.5 s).
  CHECK(h.coalesced > 0);
  CHECK(h.batches > 0);
  CHECK(h.batches <= 2 * 3 * 30);  // 2 keys x 3 coordinator nodes x 30 ticks
  CHECK(h.delay_p99_s <= 1.0 + 1e-9);
  CHECK(h.delay_mean_s > 0.4);
  CHECK(h.delay_mean_s < 0.6);
  // Uniform reads never hit the cache: none of their keys is hot.
  CHECK(h.cache_hits == 0);
  std::printf("hotkey: flagged %zu keys; %llu rows coalesced into %llu writes, delay mean %.3f s "
              "P99 %.3f s\n",
              h.flagged.size(), (unsigned long long)h.coalesced, (unsigned long long)h.batches,
              h.delay_mean_s, h.delay_p99_s);
}

TEST_CASE("hotkey: the hot shard's operations drop against full on the same seed, no row lost") {
  // Without the uniform reads, user 0's replica shards see (nearly) only background rows.
  const Run f = run(FanoutPolicy::Full, false, 31, false);
  const Run h = run(FanoutPolicy::HotKey, false, 31, false);
  // Same background draws (their own streams): the same rows offered and delivered.
  CHECK(h.offered0 == f.offered0);
  CHECK(h.delivered0 == f.delivered0);
  CHECK(f.delivered0 == f.offered0);
  // Full: ~300 rows/s x 30 s = ~9,000 ops on each of user 0's 3 replica shards (plus any
  // co-located user's). hotkey: the same until the flag, then <= 3 writes per tick per replica.
  CHECK(f.ops_user0 > 3 * 8'000);
  CHECK(h.ops_user0 < f.ops_user0 / 10);
  std::printf("hotkey: user 0's replica shards ran %llu ops under full, %llu under hotkey\n",
              (unsigned long long)f.ops_user0, (unsigned long long)h.ops_user0);
}

TEST_CASE("hotkey: hot reads are served from the client's cache, and stale hits are counted") {
  const Run h = run(FanoutPolicy::HotKey, true);
  // Users 0 (hot by its writes) and 3 (hot by its reads: 200/s) get hot replies; the client
  // serves them from its cache for the 1 s TTL.
  CHECK(h.flagged.count(0) == 1);
  CHECK(h.flagged.count(3) == 1);
  CHECK(h.fixed_hits[0] > 1'000);  // of 6,000 reads of user 0
  CHECK(h.fixed_hits[1] > 1'000);
  CHECK(h.cache_hits == h.fixed_hits[0] + h.fixed_hits[1]);
  // User 3's timeline is never written: none of its hits can be stale. User 0's receives its
  // rows in batches at the 1 s flush ticks, so a copy cached phi after a tick is stale for the
  // last phi of its 1 s TTL: the stale share is the phase between fetch and tick (it drifts by
  // one read gap per refetch), not a constant.
  CHECK(h.stale > 0);
  CHECK(h.stale <= h.fixed_hits[0]);
  CHECK(h.stale_rows >= h.stale);
  // Full: no cache.
  const Run f = run(FanoutPolicy::Full, true);
  CHECK(f.cache_hits == 0);
  CHECK(f.fixed_hits[0] == 0);
  std::printf("hotkey: cache hits user 0 %llu (stale %llu, %llu rows missed), user 3 %llu\n",
              (unsigned long long)h.fixed_hits[0], (unsigned long long)h.stale,
              (unsigned long long)h.stale_rows, (unsigned long long)h.fixed_hits[1]);
}

TEST_CASE("hotkey: the same seed gives the same run") {
  const Run a = run(FanoutPolicy::HotKey, true, 7);
  const Run b = run(FanoutPolicy::HotKey, true, 7);
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(a.flagged == b.flagged);
  CHECK(a.coalesced == b.coalesced);
  CHECK(a.batches == b.batches);
  CHECK(a.cache_hits == b.cache_hits);
  CHECK(a.stale == b.stale);
  CHECK(a.ops_user0 == b.ops_user0);
  const Run c = run(FanoutPolicy::HotKey, true, 8);
  CHECK(c.fingerprint != a.fingerprint);
}

TEST_CASE("hotkey: a bad coalesce interval is refused") {
  FanoutConfig cfg;
  cfg.policy = FanoutPolicy::HotKey;
  cfg.coalesce_interval = 0;
  CHECK_THROWS_AS(cfg.validate(), std::invalid_argument);
  CHECK(parse_fanout_policy("hotkey") == FanoutPolicy::HotKey);
  CHECK(policy_name(FanoutPolicy::HotKey) == "hotkey");
}
