#include <catch2/catch.hpp>
#include <algorithm>

#include "models/dataplane/data_plane_host.hpp"
#include "tests/models/dataplane/small_host.hpp"

using namespace skysim::dataplane;
using skysim::dataplane::testing::small_host;

TEST_CASE("a small batch is served from the cache pool without new sockets") {
  sim::Simulation sim(1);
  DataPlaneHost host(sim, small_host());
  int ok = 0;
  for (int i = 0; i < 20; ++i) {
    host.small_rpc(10, [&](const RpcResult& r) { ok += r.ok; });
    sim.run_until(sim.now() + 50 * sim::kMillisecond);
  }
  sim.run_until(sim.now() + sim::kSecond);
  CHECK(ok == 20);
  CHECK(host.stats().bind_errors == 0);
  CHECK(host.kernel().time_wait_count() == 0);  // 10-wide batches fit in a 100-conn pool
  sim.shutdown();
}

TEST_CASE("an unbounded huge batch overflows the idle pool into TIME_WAIT") {
  sim::Simulation sim(2);
  auto cfg = small_host();
  DataPlaneHost host(sim, cfg);
  bool done = false;
  host.get_post_record(2000, PostMix::kCold, [&](const RpcResult& r) { done = r.ok; });
  sim.run_until(10 * sim::kSecond);
  CHECK(done);
  // Far more than the pool: most connections were closed by the client into TIME_WAIT.
  CHECK(host.kernel().time_wait_count() > 1000);
  CHECK(host.cache_client().idle_conns() == 100);
  sim.shutdown();
}

TEST_CASE("with SetLimit(50) the same batch leaves at most 50 surplus sockets") {
  sim::Simulation sim(2);
  auto cfg = small_host();
  cfg.get_post_record_limit = 50;
  DataPlaneHost host(sim, cfg);
  bool done = false;
  host.get_post_record(2000, PostMix::kCold, [&](const RpcResult& r) { done = r.ok; });
  sim.run_until(30 * sim::kSecond);
  CHECK(done);
  CHECK(host.kernel().time_wait_count() == 0);
  CHECK(host.stats().bind_errors == 0);
  sim.shutdown();
}

TEST_CASE("a tiny port range produces Go's bind error text") {
  sim::Simulation sim(3);
  auto cfg = small_host();
  cfg.net.port_lo = 40000;
  cfg.net.port_hi = 40499;  // 500 ports
  DataPlaneHost host(sim, cfg);
  host.get_post_record(3000, PostMix::kCold, [](const RpcResult&) {});
  sim.run_until(20 * sim::kSecond);
  CHECK(host.stats().bind_errors > 0);
  CHECK(host.stats().last_bind_error ==
        "dial tcp 127.32.0.1:0->127.0.0.1:11211: bind: address already in use");
  sim.shutdown();
}

TEST_CASE("a log storm on a slow pipe grows OS threads, and they stay") {
  sim::Simulation sim(4);
  auto cfg = small_host();
  cfg.net.port_lo = 40000;
  cfg.net.port_hi = 40199;          // 200 ports: the batch below fails most dials
  cfg.log_sink.drain_bytes_per_second = 100e3;  // a slow log collector
  SECTION("unlocked writers (the PM's account): each blocked write holds an M") {
    cfg.logger.serialize_writes = false;
    DataPlaneHost host(sim, cfg);
    const auto threads_before = host.go().threads();
    host.get_post_record(3000, PostMix::kCold, [](const RpcResult&) {});
    sim.run_until(60 * sim::kSecond);
    INFO("threads before " << threads_before << " after " << host.go().threads()
                           << " log lines " << host.logger().lines_written());
    CHECK(host.logger().lines_written() > 1000);
    CHECK(host.go().threads() > 10 * threads_before);
    sim.shutdown();
  }
  SECTION("Go's fd write lock: writers queue on the lock, not on threads") {
    DataPlaneHost host(sim, cfg);
    const auto ps = host.go().gomaxprocs();
    std::int64_t most_waiting = 0;
    host.get_post_record(3000, PostMix::kCold, [](const RpcResult&) {});
    for (int i = 0; i < 600; ++i) {
      sim.run_until(sim.now() + 100 * sim::kMillisecond);
      most_waiting = std::max(most_waiting, host.logger().writers_waiting());
    }
    INFO("threads " << host.go().threads() << " GOMAXPROCS " << ps << " most waiting "
                    << most_waiting);
    CHECK(host.logger().lines_written() > 1000);
    CHECK(most_waiting > 100);                      // the backlog is parked goroutines
    CHECK(host.go().threads() <= ps + 2 + 1 + 1);   // Ps, m0 + sysmon, a writer, a slow bind
    sim.shutdown();
  }
}

TEST_CASE("a deploy replaces the process at once: threads start afresh, TIME_WAIT stays") {
  sim::Simulation sim(3);
  auto cfg = small_host();
  cfg.go.restart_delay = 30 * sim::kSecond;  // a crash would wait this long; a deploy does not
  cfg.logger.policy = logsink::LogPolicy::kEveryError;
  cfg.log_sink.drain_bytes_per_second = 20e3;  // a slow log pipe: error writes block on it
  cfg.logger.serialize_writes = false;         // each blocked write holds its M
  cfg.net.port_hi = static_cast<std::uint16_t>(cfg.net.port_lo + 499);  // 500 ports
  DataPlaneHost host(sim, cfg);
  host.get_post_record(2000, PostMix::kCold, [](const RpcResult&) {});
  sim.run_until(5 * sim::kSecond);
  REQUIRE(host.stats().bind_errors > 0);
  const auto threads_before = host.go().threads();
  REQUIRE(threads_before > 20);  // blocked write(2)s hold their Ms
  const auto tw = host.kernel().time_wait_count();
  REQUIRE(tw > 0);

  host.deploy("dialer = random_loopback");
  sim.run_until(sim.now() + sim::kMillisecond);
  CHECK(host.go().alive());
  CHECK(host.go().crashes() == 0);  // a deploy is not a crash
  CHECK(host.go().threads() < threads_before / 4);
  CHECK(host.kernel().time_wait_count() >= tw);  // the old sockets outlive the process
  CHECK(host.uptimes_before_death().empty());
  bool deployed = false;
  for (const auto& e : host.events()) deployed |= e.what.rfind("deploy: dialer", 0) == 0;
  CHECK(deployed);
  sim.shutdown();
}

TEST_CASE("a restarted process cannot dial Scylla while the dead one's bound TIME_WAIT holds the range") {
  // connect() without bind skips every port a bind()-made socket holds, on any address
  // (docs/models/net.md): the old process's 127.32.0.1 TIME_WAIT takes the Scylla pool's ports
  // too, so after the restart every cache miss fails at Scylla until TIME_WAIT ends.
  sim::Simulation sim(3);
  auto cfg = small_host();
  cfg.go.restart_delay = 5 * sim::kSecond;
  cfg.net.port_hi = static_cast<std::uint16_t>(cfg.net.port_lo + 499);  // 500 ports
  DataPlaneHost host(sim, cfg);
  host.get_post_record(2000, PostMix::kCold, [](const RpcResult&) {});
  sim.run_until(3 * sim::kSecond);
  REQUIRE(host.stats().bind_errors > 0);  // the range is full of 127.32.0.1's binds
  REQUIRE(host.scylla_pool().open_conns() == 6);  // dialled before the storm: established
  CHECK(host.stats().scylla_errors == 0);
  host.go().kill(goruntime::CrashReason::kOomKill);
  sim.run_until(sim.now() + 6 * sim::kSecond);  // restarted, TIME_WAIT still there
  REQUIRE(host.go().alive());
  REQUIRE(host.kernel().free_connect_ports(cfg.net.host_ip, skysim::net::Endpoint::parse("10.2.0.1:9042")) == 0);
  host.get_post_record(50, PostMix::kCold, [](const RpcResult&) {});
  sim.run_until(sim.now() + sim::kSecond);
  const auto failed = host.stats().scylla_errors;
  CHECK(failed > 0);
  CHECK(host.scylla_pool().open_conns() == 0);
  CHECK(host.scylla_pool().dial_errors() > 0);
  // 60 s after the crash the old TIME_WAIT is gone: the pool fills and reads succeed again.
  sim.run_until(sim.now() + 60 * sim::kSecond);
  const auto reads = host.stats().scylla_reads;
  host.get_post_record(50, PostMix::kCold, [](const RpcResult&) {});
  sim.run_until(sim.now() + sim::kSecond);
  CHECK(host.stats().scylla_reads > reads);
  CHECK(host.scylla_pool().open_conns() == 6);
  host.kernel().check_invariants();
  sim.shutdown();
}

TEST_CASE("the pooled memcached connections' bufio buffers are live heap of the process") {
  // After a 2,000-URI batch the pool keeps 100 connections: 100 x 8 KiB (gomemcache's
  // bufio.Reader and bufio.Writer) stay reachable on top of the baseline heap; the surplus
  // connections' buffers were released when the client closed them.
  auto live_after_batch = [](std::int64_t buffers) {
    sim::Simulation sim(2);
    auto cfg = small_host();
    cfg.cache_client.conn_buffer_bytes = buffers;
    DataPlaneHost host(sim, cfg);
    host.get_post_record(2000, PostMix::kCold, [](const RpcResult&) {});
    sim.run_until(10 * sim::kSecond);
    REQUIRE(host.cache_client().idle_conns() == 100);
    REQUIRE(host.cache_client().open_conns() == 100);
    const std::int64_t live = host.go().heap_live_bytes();
    sim.shutdown();
    return live;
  };
  CHECK(live_after_batch(8192) - live_after_batch(0) == 100 * 8192);
}
