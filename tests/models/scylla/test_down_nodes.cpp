// Scylla nodes down (the fuzz fault hook down_nodes): ops go to live replicas only and wait for
// CL of them; with fewer live replicas than CL needs they wait (Unavailable, retried) until
// enough nodes are back.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "models/scylla/cluster.hpp"
#include "sim/simulation.hpp"

using namespace scylla;
using sim::kMillisecond;
using sim::kSecond;

namespace {

struct Counter final : WriteSink {
  std::vector<sim::Time> done_at;
  void on_done(sim::Simulation& s, std::uint64_t, sim::Duration) override {
    done_at.push_back(s.now());
  }
};

ScyllaConfig small(Consistency cl) {
  ScyllaConfig cfg;
  cfg.nodes = 6;
  cfg.shards_per_node = 4;
  cfg.cl = cl;
  return cfg;
}

bool touches(ScyllaCluster& c, PartitionKey k, std::uint32_t down) {
  const ShardId* r = c.replicas(k);
  for (std::uint32_t i = 0; i < c.rf(); ++i) {
    if (r[i] / c.config().shards_per_node < down) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("one node down under QUORUM: every op completes, none on the down node's shards") {
  sim::Simulation s(1);
  ScyllaCluster c(s, small(Consistency::Quorum), 500);
  c.set_down_nodes(1);
  Counter rec;
  int touching = 0;
  for (PartitionKey k = 0; k < 500; ++k) {
    touching += touches(c, k, 1);
    c.write(k, rec, k);
  }
  s.run();
  CHECK(rec.done_at.size() == 500);
  CHECK(c.unavailable() == 0);
  CHECK(c.degraded() == static_cast<std::uint64_t>(touching));
  CHECK(touching > 0);
  for (ShardId sh = 0; sh < 4; ++sh) CHECK(c.busy_ns(sh, s.now()) == 0);  // node 0's shards
}

TEST_CASE("ops short of CL live replicas wait until the nodes return, then complete") {
  sim::Simulation s(2);
  ScyllaCluster c(s, small(Consistency::Quorum), 500);
  c.set_down_nodes(2);
  Counter rec;
  std::uint64_t short_of_cl = 0;
  for (PartitionKey k = 0; k < 500; ++k) {
    const ShardId* r = c.replicas(k);
    int down = 0;
    for (std::uint32_t i = 0; i < c.rf(); ++i) down += r[i] / 4 < 2;
    short_of_cl += down >= 2;
    c.write(k, rec, k);
  }
  s.run_until(kSecond);
  REQUIRE(short_of_cl > 0);
  CHECK(c.unavailable() == short_of_cl);
  CHECK(c.waiting() == short_of_cl);
  CHECK(rec.done_at.size() == 500 - short_of_cl);
  c.set_down_nodes(0);
  s.run();
  CHECK(rec.done_at.size() == 500);
  CHECK(c.waiting() == 0);
  std::uint64_t late = 0;
  for (sim::Time t : rec.done_at) late += t > kSecond;
  CHECK(late == short_of_cl);
}

TEST_CASE("CL ALL waits on any down replica; CL ONE on none while one is up") {
  for (Consistency cl : {Consistency::All, Consistency::One}) {
    sim::Simulation s(3);
    ScyllaCluster c(s, small(cl), 300);
    c.set_down_nodes(1);
    Counter rec;
    std::uint64_t touching = 0;
    for (PartitionKey k = 0; k < 300; ++k) {
      touching += touches(c, k, 1);
      c.read(k, 10, rec, k);
    }
    s.run_until(kSecond);
    CHECK(c.unavailable() == (cl == Consistency::All ? touching : 0));
    c.set_down_nodes(0);
    s.run();
    CHECK(rec.done_at.size() == 300);
  }
}

TEST_CASE("down_nodes beyond the cluster is an error; zero is the unchanged path") {
  sim::Simulation s(4);
  ScyllaCluster c(s, small(Consistency::Quorum), 10);
  CHECK_THROWS_AS(c.set_down_nodes(7), std::invalid_argument);
  // The same ops with down_nodes set to 0 (and back) take the same times as never set.
  auto times = [](bool touch) {
    sim::Simulation s2(5);
    ScyllaCluster c2(s2, small(Consistency::Quorum), 100);
    if (touch) {
      c2.set_down_nodes(3);
      c2.set_down_nodes(0);
    }
    Counter rec;
    for (PartitionKey k = 0; k < 100; ++k) c2.write(k, rec, k);
    s2.run();
    return rec.done_at;
  };
  CHECK(times(false) == times(true));
}

TEST_CASE("a killed node (any node, not only the first) is down as the fault's are, until back") {
  // Node 3 killed (the machine's OOM killer, scenarios/machine.hpp): the ops whose replicas
  // include node 3's shards are served by the other two (degraded), none touches its shards;
  // killed with node 4 too, the ops with two replicas there wait for CL until node 4 is back.
  auto on_nodes = [](ScyllaCluster& c, PartitionKey k, std::uint32_t a, std::uint32_t b) {
    const ShardId* r = c.replicas(k);
    int n = 0;
    for (std::uint32_t i = 0; i < c.rf(); ++i) {
      const std::uint32_t node = r[i] / c.config().shards_per_node;
      n += node == a || node == b;
    }
    return n;
  };
  sim::Simulation s(6);
  ScyllaCluster c(s, small(Consistency::Quorum), 500);
  c.set_node_killed(3, true);
  CHECK(c.node_killed(3));
  CHECK(c.down_nodes() == 1);
  Counter rec;
  std::uint64_t on_3 = 0;
  for (PartitionKey k = 0; k < 500; ++k) {
    on_3 += on_nodes(c, k, 3, 3) > 0;
    c.write(k, rec, k);
  }
  s.run();
  REQUIRE(on_3 > 0);
  CHECK(rec.done_at.size() == 500);
  CHECK(c.degraded() == on_3);
  CHECK(c.unavailable() == 0);
  for (ShardId sh = 12; sh < 16; ++sh) CHECK(c.busy_ns(sh, s.now()) == 0);  // node 3's shards

  c.set_node_killed(4, true);
  CHECK(c.down_nodes() == 2);
  Counter more;
  std::uint64_t short_of_cl = 0;
  for (PartitionKey k = 0; k < 500; ++k) {
    short_of_cl += on_nodes(c, k, 3, 4) >= 2;
    c.write(k, more, k);
  }
  s.run_until(s.now() + kSecond);
  REQUIRE(short_of_cl > 0);
  CHECK(c.waiting() == short_of_cl);
  c.set_node_killed(4, false);
  s.run();
  CHECK(more.done_at.size() == 500);
  CHECK(c.waiting() == 0);
  CHECK(c.down_nodes() == 1);
  CHECK_THROWS_AS(c.set_node_killed(6, true), std::invalid_argument);
}
