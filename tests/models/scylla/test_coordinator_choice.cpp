// The client's coordinator choice (ScyllaCluster::write/read `via`) and coalesced background
// writes (background_write(key, rows)): a request names the replica that coordinates it, so a
// caller knows which node saw it; a batch of rows is one task per replica with at most one trim.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "models/scylla/cluster.hpp"
#include "sim/simulation.hpp"

using namespace scylla;

namespace {

ScyllaConfig small() {
  ScyllaConfig cfg;
  cfg.nodes = 4;
  cfg.shards_per_node = 4;
  return cfg;
}

struct Count final : WriteSink {
  int done = 0;
  void on_done(sim::Simulation&, std::uint64_t, sim::Duration) override { ++done; }
};

}  // namespace

TEST_CASE("coordinator choice: the named replica coordinates, and no coordinator is drawn") {
  for (std::uint32_t via = 0; via < 3; ++via) {
    sim::Simulation s(5);
    ScyllaCluster c(s, small(), 100);
    const PartitionKey key = 11;
    const ShardId* r = c.replicas(key);
    Count sink;
    c.write(key, sink, 0, via);
    s.run_until(sim::kSecond);
    REQUIRE(sink.done == 1);
    // The write ran on every replica (one task each) plus the coordinator step on r[via].
    for (std::uint32_t i = 0; i < 3; ++i) {
      CHECK(c.statement_ops(r[i]) == (i == via ? 2u : 1u));
    }
    CHECK(c.node_of(r[via]) == r[via] / small().shards_per_node);
    // A read coordinated on r[via] reads the coordinator's own copy plus one more (QUORUM).
    c.read(key, 50, sink, 0, via);
    s.run_until(2 * sim::kSecond);
    CHECK(sink.done == 2);
    CHECK(c.statement_ops(r[via]) == 4u);
  }
  sim::Simulation s(5);
  ScyllaCluster c(s, small(), 100);
  Count sink;
  CHECK_THROWS_AS(c.write(1, sink, 0, 3), std::out_of_range);  // rf 3: replicas 0..2
}

TEST_CASE("a coalesced background write is one task per replica and trims at most once") {
  sim::Simulation s(6);
  ScyllaConfig cfg = small();
  cfg.exponential_service = false;
  ScyllaCluster batched(s, cfg, 100);
  ScyllaCluster single(s, cfg, 100, "single");
  const PartitionKey bot = 7;
  batched.add_fed_partition(bot, 0.0);
  single.add_fed_partition(bot, 0.0);
  // 500 rows: 1 task per replica vs 500; the partition starts at its target (1,000 live), so
  // the singles trim every 101 rows (4 trims) and the batch once.
  batched.background_write(bot, 500);
  for (int i = 0; i < 500; ++i) single.background_write(bot);
  // Read at t = 0: no compaction trigger has added work yet.
  const ShardId* r = batched.replicas(bot);
  const ShardId* q = single.replicas(bot);
  const TimelineCostModel m;
  for (std::uint32_t i = 0; i < 3; ++i) {
    CHECK(batched.statement_ops(r[i]) == 1u);
    CHECK(single.statement_ops(q[i]) == 500u);
    // Batch: 500 x 30 us + one trim scanning 1,500 live rows. Singles: 500 x 30 us + trims at
    // 1,101 live rows with 0, 101, 202, 303 shadowed before them.
    const double rows = 500.0 * static_cast<double>(m.write_service_mean);
    CHECK(batched.busy_ns(r[i], s.now()) == Approx(rows + 1'500.0 * 1e3));
    CHECK(single.busy_ns(q[i], s.now()) ==
          Approx(rows + (4 * 1'101.0 + 101 + 202 + 303) * 1e3));
  }
  CHECK(batched.background_writes() == 500u);
  CHECK_THROWS_AS(batched.background_write(bot, 0), std::invalid_argument);
}
