// The cluster on Seastar-scheduled shards: timeouts with Scylla's defaults, reads to the CL
// replicas only, compaction as work in its own scheduling group (docs/models/scylla.md).
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "models/scylla/cluster.hpp"
#include "sim/simulation.hpp"

using namespace scylla;
using sim::kMicrosecond;
using sim::kMillisecond;
using sim::kSecond;

namespace {

struct Outcomes final : WriteSink {
  std::vector<sim::Duration> done;
  std::vector<sim::Duration> timed_out;
  void on_done(sim::Simulation&, std::uint64_t, sim::Duration latency) override {
    done.push_back(latency);
  }
  void on_timeout(sim::Simulation&, std::uint64_t, sim::Duration latency) override {
    timed_out.push_back(latency);
  }
};

ScyllaConfig tiny() {
  ScyllaConfig cfg;
  cfg.nodes = 3;
  cfg.shards_per_node = 2;
  cfg.exponential_service = false;
  return cfg;
}

// Issues `n` operations, one every `gap`.
struct Issuer final : sim::Handler {
  ScyllaCluster* c;
  Outcomes* out;
  PartitionKey key;
  sim::Duration gap;
  int left;
  bool reads;
  Issuer(ScyllaCluster* cl, Outcomes* o, PartitionKey k, sim::Duration g, int n, bool r)
      : c(cl), out(o), key(k), gap(g), left(n), reads(r) {}
  void on_event(sim::Simulation& s) override {
    if (reads) {
      c->read(key, 50, *out, 0);
    } else {
      c->write(key, *out, 0);
    }
    if (--left > 0) s.schedule_in(gap, *this);
  }
};

}  // namespace

TEST_CASE("Scylla's default timeouts are 2 s for writes and 5 s for reads") {
  const ScyllaConfig cfg;
  CHECK(cfg.write_timeout == 2 * kSecond);
  CHECK(cfg.read_timeout == 5 * kSecond);
  CHECK(cfg.reactor.task_quota == 500 * kMicrosecond);
  CHECK(cfg.reactor.shares[0] == 1000.0);  // statement
  CHECK(cfg.reactor.shares[2] == 200.0);   // streaming
}

TEST_CASE("writes to an overloaded shard time out at the write timeout and are counted") {
  sim::Simulation s(3);
  ScyllaConfig cfg = tiny();
  cfg.rf = 1;
  cfg.cl = Consistency::One;
  cfg.timeline.write_service_mean = 2 * kMillisecond;  // 500 writes/s saturate a shard
  ScyllaCluster c(s, cfg, 10);
  Outcomes out;
  Issuer is(&c, &out, 3, kMillisecond, 3000, false);  // 1,000 writes/s offered: load 2
  s.schedule_at(0, is);
  s.run();
  REQUIRE(out.done.size() + out.timed_out.size() == 3000);
  CHECK(c.write_timeouts() == out.timed_out.size());
  CHECK(out.timed_out.size() > 1000);
  for (sim::Duration l : out.timed_out) {
    CHECK(l == cfg.write_timeout + cfg.client_rtt);  // answered at the deadline, not later
  }
  for (sim::Duration l : out.done) {
    CHECK(l <= cfg.write_timeout + cfg.client_rtt);
  }
  CHECK(c.read_timeouts() == 0);
}

TEST_CASE("a read waits at most the read timeout; a write on the same shard the write timeout") {
  sim::Simulation s(4);
  ScyllaConfig cfg = tiny();
  cfg.rf = 1;
  cfg.cl = Consistency::One;
  cfg.write_timeout = 100 * kMillisecond;
  cfg.read_timeout = 300 * kMillisecond;
  cfg.read_service_mean = 4 * kMillisecond;
  cfg.timeline.write_service_mean = 4 * kMillisecond;
  ScyllaCluster c(s, cfg, 10);
  Outcomes w;
  Outcomes r;
  Issuer iw(&c, &w, 2, kMillisecond, 500, false);
  Issuer ir(&c, &r, 2, kMillisecond, 500, true);
  s.schedule_at(0, iw);
  s.schedule_at(0, ir);
  s.run();
  REQUIRE(!w.timed_out.empty());
  REQUIRE(!r.timed_out.empty());
  CHECK(w.timed_out.front() == 100 * kMillisecond + cfg.client_rtt);
  CHECK(r.timed_out.front() == 300 * kMillisecond + cfg.client_rtt);
  CHECK(c.write_timeouts() == w.timed_out.size());
  CHECK(c.read_timeouts() == r.timed_out.size());
}

TEST_CASE("a QUORUM read goes to two of three replicas, a write to all three") {
  auto work = [](bool reads) {
    sim::Simulation s(5);
    ScyllaConfig cfg = tiny();
    ScyllaCluster c(s, cfg, 10);
    Outcomes out;
    Issuer is(&c, &out, 4, 10 * kMillisecond, 100, reads);
    s.schedule_at(0, is);
    s.run();
    REQUIRE(out.done.size() == 100);
    double busy = 0;
    for (ShardId sh = 0; sh < cfg.total_shards(); ++sh) busy += c.busy_ns(sh, s.now());
    return busy / 100.0;
  };
  const ScyllaConfig cfg = tiny();
  const double per_read = work(true);
  const double per_write = work(false);
  // coordinator + CL (= 2) replica reads of 50 rows (no shadowed rows): 20 + 2 x (50 + 50) us
  CHECK(per_read == Approx(static_cast<double>(cfg.coordinator_service_mean +
                                               2 * (cfg.read_service_mean + 50 * kMicrosecond))));
  CHECK(per_write == Approx(static_cast<double>(cfg.coordinator_service_mean +
                                                3 * cfg.timeline.write_service_mean)));
}

TEST_CASE("compaction is work in its own group: it runs, costs CPU and purges when done") {
  sim::Simulation s(6);
  ScyllaConfig cfg = tiny();
  cfg.rf = 1;
  cfg.cl = Consistency::One;
  cfg.timeline.compaction_interval = 10 * kSecond;
  cfg.timeline.aligned_compaction = true;  // every shard triggers at 10 s, 20 s, ...
  cfg.timeline.compaction_row_cost = 100 * kMicrosecond;
  ScyllaCluster c(s, cfg, 10);
  const PartitionKey bot = 1;
  c.add_background_partition(bot, 1000.0);  // 1,000 rows/s on its shard
  Outcomes out;
  // A probe on the bot's partition itself, so every write sees its shadowed rows.
  Issuer is(&c, &out, bot, 50 * kMillisecond, 400, false);
  s.schedule_at(0, is);
  const ShardId sh = c.replicas(bot)[0];
  s.run_until(10 * kSecond + 500 * kMillisecond);
  // The job started at 10 s with ~10,200 rows to rewrite at 100 us each: ~1 s of CPU. With
  // equal shares it gets all the CPU the statements (~15 % here: the bot's writes and trims)
  // leave: between 80 % and 100 % of the 0.5 s since.
  CHECK(c.compactions_done() == 0);
  const sim::Duration half = c.group_ran(sh, Group::Compaction, s.now());
  CHECK(half > 400 * kMillisecond);
  CHECK(half < 500 * kMillisecond);
  s.run_until(19 * kSecond);
  CHECK(c.compactions_done() == 1);  // shards nobody touched trigger lazily, when next touched
  const sim::Duration ran = c.group_ran(sh, Group::Compaction, s.now());
  CHECK(ran > 950 * kMillisecond);
  CHECK(ran < 1100 * kMillisecond);
  CHECK(c.group_ran(sh, Group::Statement, s.now()) > 0);
  // Writes arriving while the compaction ran waited at most about a quota for it.
  sim::Duration worst = 0;
  for (sim::Duration l : out.done) worst = std::max(worst, l);
  const sim::Duration unloaded = cfg.client_rtt + cfg.coordinator_service_mean +
                                 cfg.timeline.write_service_mean;
  CHECK(worst < unloaded + 25 * kMillisecond);  // the bot's own trims dominate, not the job
  // The issuer still has writes queued and dies before the cluster: discard them now (ASan:
  // the cluster's own shutdown would call the dead issuer's on_discard).
  s.shutdown();
}

TEST_CASE("speculative retry: off by default; on, a read stuck on a slow replica is answered by "
          "a third") {
  auto run = [](sim::Duration spec) {
    sim::Simulation s(8);
    ScyllaConfig cfg = tiny();
    cfg.speculative_retry = spec;
    ScyllaCluster c(s, cfg, 2000);
    const PartitionKey slow = 7;
    c.add_background_partition(slow, 1500.0);  // its replica shards carry long trims
    // Reads of ordinary partitions that share the slow partition's shards.
    PartitionKey k = 0;
    for (PartitionKey p = 0; p < 2000; ++p) {
      if (p != slow && c.replicas(p)[0] == c.replicas(slow)[0]) {
        k = p;
        break;
      }
    }
    Outcomes out;
    Issuer is(&c, &out, k, 20 * kMillisecond, 1000, true);
    s.schedule_at(40 * kSecond, is);
    s.run_until(70 * kSecond);
    sim::Duration worst = 0;
    for (sim::Duration l : out.done) worst = std::max(worst, l);
    return std::pair{c.speculative_reads(), worst};
  };
  const auto off = run(0);
  const auto on = run(2 * kMillisecond);
  CHECK(off.first == 0);
  CHECK(on.first > 0);
  // Every replica of the slow partition is slow here (same core on all three nodes), so the
  // retry helps little: it must at least never make the worst read slower than twice as bad.
  CHECK(on.second <= 2 * off.second);
}

TEST_CASE("same seed: the same trajectory, with background, hot partitions and timeouts") {
  auto run = [] {
    sim::Simulation s(11);
    ScyllaConfig cfg;
    cfg.nodes = 4;
    cfg.shards_per_node = 3;
    cfg.background_writes_per_s = 2e4;
    cfg.scale = 0.1;
    cfg.timeline.compaction_interval = 5 * kSecond;
    cfg.write_timeout = 50 * kMillisecond;
    ScyllaCluster c(s, cfg, 3000);
    c.add_background_partition(5, 1800.0);
    c.add_background_partition(9, 1500.0);
    Outcomes out;
    std::vector<std::unique_ptr<Issuer>> is;
    for (PartitionKey k = 0; k < 40; ++k) {
      is.push_back(std::make_unique<Issuer>(&c, &out, k * 7, 3 * kMillisecond, 2000, k % 3 == 0));
      s.schedule_at(k * 100 * kMicrosecond, *is.back());
    }
    s.run_until(12 * kSecond);
    return std::tuple{s.fingerprint(), out.done, out.timed_out.size()};
  };
  const auto a = run();
  const auto b = run();
  CHECK(std::get<0>(a) == std::get<0>(b));
  CHECK(std::get<1>(a) == std::get<1>(b));
  CHECK(std::get<2>(a) == std::get<2>(b));
}
