// A partition the caller writes (add_fed_partition + background_write): the fan-out's bots'
// background, each row one the lossy filter kept. It generates nothing by itself; each write is
// one row on every replica shard at once.
#include <catch2/catch.hpp>
#include <functional>
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

// A callback event: a test drives background_write at chosen instants.
struct At final : sim::Handler {
  std::function<void()> f;
  void on_event(sim::Simulation&) override { f(); }
};

}  // namespace

TEST_CASE("a fed partition is written only when the caller writes it, on every replica") {
  sim::Simulation s(3);
  ScyllaCluster c(s, small(), 100);
  const PartitionKey bot = 7;
  c.add_fed_partition(bot, 0.0);
  s.run_until(sim::kSecond);
  const ShardId* r = c.replicas(bot);
  for (std::uint32_t i = 0; i < c.rf(); ++i) {
    CHECK(c.busy_ns(r[i], s.now()) == 0.0);  // no arrivals of its own
  }
  At tick;
  int n = 0;
  tick.f = [&] {
    c.background_write(bot);
    if (++n < 500) s.schedule_in(sim::kMillisecond, tick);
  };
  s.schedule_in(0, tick);
  s.run_until(2 * sim::kSecond);
  CHECK(c.background_writes() == 500);
  const double one = c.busy_ns(r[0], s.now());
  CHECK(one > 500 * 0.5 * static_cast<double>(small().timeline.write_service_mean));
  for (std::uint32_t i = 1; i < c.rf(); ++i) {
    CHECK(c.busy_ns(r[i], s.now()) > 0.0);  // each replica took every row
  }
  CHECK(c.writes_done() == 0);  // no client op: nobody waited for these rows
}

TEST_CASE("fed partitions: a write to an unregistered one, or registering twice, is an error") {
  sim::Simulation s(3);
  ScyllaCluster c(s, small(), 100);
  CHECK_THROWS_AS(c.background_write(5), std::logic_error);
  c.add_fed_partition(5, 10.0);
  CHECK_THROWS_AS(c.add_fed_partition(5, 10.0), std::invalid_argument);
  CHECK_THROWS_AS(c.add_fed_partition(6, -1.0), std::invalid_argument);
}
