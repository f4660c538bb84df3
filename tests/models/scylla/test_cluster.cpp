#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "models/scylla/cluster.hpp"
#include "sim/simulation.hpp"

using namespace scylla;
using sim::kMicrosecond;
using sim::kMillisecond;
using sim::kSecond;

namespace {

struct Recorder final : WriteSink {
  std::vector<sim::Duration> latencies;
  void on_done(sim::Simulation&, std::uint64_t, sim::Duration latency) override {
    latencies.push_back(latency);
  }
};

// Issues one write to `key` every `gap`, `n` times.
struct Pacer final : sim::Handler {
  Pacer(ScyllaCluster* c, Recorder* r, PartitionKey k, sim::Duration g, int n)
      : cluster(c), rec(r), key(k), gap(g), left(n) {}
  ScyllaCluster* cluster;
  Recorder* rec;
  PartitionKey key;
  sim::Duration gap;
  int left;
  void on_event(sim::Simulation& s) override {
    cluster->write(key, *rec, 0);
    if (--left > 0) {
      s.schedule_in(gap, *this);
    }
  }
};

double mean_of(const std::vector<sim::Duration>& v) {
  double s = 0;
  for (auto x : v) {
    s += static_cast<double>(x);
  }
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

}  // namespace

TEST_CASE("an unloaded QUORUM write costs client rtt + coordinator + write + one replica rtt") {
  sim::Simulation s(1);
  ScyllaConfig cfg;
  cfg.nodes = 4;
  cfg.shards_per_node = 4;
  cfg.exponential_service = false;
  ScyllaCluster c(s, cfg, 100);
  Recorder rec;
  c.write(5, rec, 0);
  s.run();
  REQUIRE(rec.latencies.size() == 1);
  CHECK(rec.latencies[0] == 300 * kMicrosecond + 20 * kMicrosecond + 30 * kMicrosecond +
                                200 * kMicrosecond);
  cfg.cl = Consistency::One;  // the coordinator's own replica answers first
  sim::Simulation s2(1);
  ScyllaCluster c2(s2, cfg, 100);
  Recorder rec2;
  c2.write(5, rec2, 0);
  s2.run();
  CHECK(rec2.latencies[0] == 350 * kMicrosecond);
}

TEST_CASE("token ring: a partition's replicas use the same core index on RF distinct nodes") {
  sim::Simulation s(3);
  ScyllaConfig cfg;
  cfg.nodes = 6;
  cfg.shards_per_node = 8;
  ScyllaCluster c(s, cfg, 1000);
  for (PartitionKey k = 0; k < 1000; k += 7) {
    const ShardId* r = c.replicas(k);
    CHECK(r[0] % 8 == r[1] % 8);
    CHECK(r[1] % 8 == r[2] % 8);
    CHECK(r[0] / 8 != r[1] / 8);
    CHECK(r[0] % 8 == shard_of(bigint_token(k), 8));
  }
  CHECK_THROWS(c.replicas(1000));
}

TEST_CASE("a hyper-written partition slows every partition on its shard, not the others") {
  sim::Simulation s(5);
  ScyllaConfig cfg;
  cfg.nodes = 3;
  cfg.shards_per_node = 4;
  cfg.rf = 1;
  cfg.cl = Consistency::One;
  ScyllaCluster c(s, cfg, 5000);
  const PartitionKey bot = 17;
  PartitionKey neighbour = 0;
  PartitionKey elsewhere = 0;
  for (PartitionKey k = 0; k < 5000 && (neighbour == 0 || elsewhere == 0); ++k) {
    if (k == bot) {
      continue;
    }
    if (c.replicas(k)[0] == c.replicas(bot)[0] && neighbour == 0) {
      neighbour = k;
    } else if (c.replicas(k)[0] != c.replicas(bot)[0] && elsewhere == 0) {
      elsewhere = k;
    }
  }
  REQUIRE(neighbour != 0);
  REQUIRE(elsewhere != 0);
  c.add_background_partition(bot, 800.0);  // "hundreds of times a second" (domain.md §8.1)
  Recorder near_rec;
  Recorder far_rec;
  Pacer near_p(&c, &near_rec, neighbour, 10 * kMillisecond, 2000);
  Pacer far_p(&c, &far_rec, elsewhere, 10 * kMillisecond, 2000);
  s.schedule_at(kSecond, near_p);
  s.schedule_at(kSecond, far_p);
  s.run_until(40 * kSecond);
  REQUIRE(near_rec.latencies.size() == 2000);
  REQUIRE(far_rec.latencies.size() == 2000);
  // The neighbour pays for the bot's writes and its ever longer trims; the other shard does not.
  CHECK(mean_of(near_rec.latencies) > 1.3 * mean_of(far_rec.latencies));
  CHECK(c.partition(bot).live_rows() == cfg.timeline.target_rows);  // bot copy is per replica
  CHECK(c.utilisation(c.replicas(bot)[0], s.now()) > 3 * c.utilisation(c.replicas(elsewhere)[0],
                                                                        s.now()));
}

TEST_CASE("background utilisation is the same at every scale") {
  auto run = [](double scale) {
    sim::Simulation s(9);
    ScyllaConfig cfg;
    cfg.nodes = 4;
    cfg.shards_per_node = 4;
    cfg.background_writes_per_s = 1e5;
    cfg.scale = scale;
    ScyllaCluster c(s, cfg, 10);
    c.reset_window(0);
    s.run_until(20 * kSecond);
    double sum = 0;
    for (double u : c.utilisations(s.now())) {
      sum += u;
    }
    return sum / cfg.total_shards();
  };
  // per shard: 1e5 * 3 / 16 writes/s x (30 + 1100/100 + 20/3) us ~= 0.89
  const double expected = 1e5 * 3 / 16 * (30 + 1100.0 / 100 + 20.0 / 3) * 1e-6;
  CHECK(run(0.01) == Approx(expected).epsilon(0.05));
  CHECK(run(0.1) == Approx(expected).epsilon(0.05));
}

TEST_CASE("bad cluster configuration is rejected with a message") {
  sim::Simulation s(1);
  ScyllaConfig cfg;
  cfg.nodes = 2;
  CHECK_THROWS_WITH(ScyllaCluster(s, cfg, 10), Catch::Contains("replication_factor"));
  cfg = ScyllaConfig{};
  cfg.scale = 0;
  CHECK_THROWS_WITH(ScyllaCluster(s, cfg, 10), Catch::Contains("scale"));
  CHECK_THROWS_WITH(parse_consistency("TWO"), Catch::Contains("TWO"));
  CHECK(parse_consistency("LOCAL_QUORUM") == Consistency::LocalQuorum);
  CHECK(replies_needed(Consistency::Quorum, 3) == 2);
  CHECK(replies_needed(Consistency::One, 3) == 1);
  CHECK(replies_needed(Consistency::All, 5) == 5);
  CHECK_THROWS(parse_placement("random"));
}

TEST_CASE("a warmed hot partition carries the shadowed rows since its shard's last compaction") {
  TimelineCostModel m;  // target 1,000, slack 100, 1 us per row, compaction every 60 s
  TimelinePartition p;
  // Shard phase 20 s: compactions at ..., 20 s, 80 s, 140 s. At 90 s, 10 s of writes at
  // 1,000/s = 10,000 writes since the last one, 99 trims of 101 rows each.
  p.warm(m, 90 * kSecond, 20 * kSecond, 1000.0);
  CHECK(p.shadowed_rows() == 99 * 101);
  CHECK(p.live_rows() == 1000 + 10'000 % 101);
  CHECK(p.read_cost(m, 95 * kSecond, 0, 20 * kSecond) == 99 * 101 * kMicrosecond);
  CHECK(p.read_cost(m, 139 * kSecond, 0, 20 * kSecond) == 99 * 101 * kMicrosecond);
  CHECK(p.read_cost(m, 141 * kSecond, 0, 20 * kSecond) == 0);  // purged at 140 s
  // The same partition on an aligned grid would have been purged at 120 s.
  TimelinePartition q;
  q.warm(m, 90 * kSecond, 0, 1000.0);
  CHECK(q.shadowed_rows() == 297 * 101);  // 30,000 writes since 60 s
  CHECK(q.read_cost(m, 121 * kSecond, 0, 0) == 0);
}

TEST_CASE("compaction phases are per shard, or one grid when aligned") {
  sim::Simulation s(11);
  ScyllaConfig cfg;
  cfg.nodes = 4;
  cfg.shards_per_node = 8;
  ScyllaCluster per_shard(s, cfg, 10, "a");
  std::vector<sim::Duration> phases;
  for (ShardId sh = 0; sh < cfg.total_shards(); ++sh) {
    const sim::Duration ph = per_shard.compaction_phase(sh);
    CHECK(ph >= 0);
    CHECK(ph < cfg.timeline.compaction_interval);
    phases.push_back(ph);
  }
  std::sort(phases.begin(), phases.end());
  CHECK(std::unique(phases.begin(), phases.end()) - phases.begin() == cfg.total_shards());
  // Spread over the interval, not bunched: some shard in each half.
  CHECK(phases.front() < cfg.timeline.compaction_interval / 2);
  CHECK(phases.back() >= cfg.timeline.compaction_interval / 2);
  cfg.timeline.aligned_compaction = true;
  ScyllaCluster aligned(s, cfg, 10, "b");
  for (ShardId sh = 0; sh < cfg.total_shards(); ++sh) {
    CHECK(aligned.compaction_phase(sh) == 0);
  }
}
