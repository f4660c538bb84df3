// The data-plane host's fault hooks (fuzz drives them through timeline windows): a lowered
// container memory limit is an OOM kill through the Go model's own check, a memcached restart
// loses the items and resets the connections, a forced stop-the-world holds every goroutine.
#include <catch2/catch.hpp>

#include "models/dataplane/data_plane_host.hpp"
#include "tests/models/dataplane/small_host.hpp"

using namespace skysim::dataplane;

namespace {

// Restarts within the test's few simulated seconds.
DataPlaneConfig small_host() {
  DataPlaneConfig c = testing::small_host();
  c.go.restart_delay = 2 * sim::kSecond;
  return c;
}

}  // namespace

TEST_CASE("a memory limit below RSS is an OOM kill at once; the restart runs under the new one") {
  sim::Simulation sim(11);
  DataPlaneHost host(sim, small_host());
  sim.run_until(sim::kSecond);
  const std::int64_t rss = host.go().rss_bytes();
  REQUIRE(rss > (64LL << 20));
  host.set_memory_limit(rss * 2);  // above RSS: nothing happens
  CHECK(host.go().alive());
  CHECK(host.go().oom_kills() == 0);
  host.set_memory_limit(rss / 2);
  CHECK_FALSE(host.go().alive());
  CHECK(host.go().oom_kills() == 1);
  // The restarted process retains its baseline heap: still above the limit, killed again.
  sim.run_until(sim.now() + 3 * sim::kSecond);
  CHECK(host.go().oom_kills() == 2);
  host.set_memory_limit(0);  // the window ends: no limit
  sim.run_until(sim.now() + 3 * sim::kSecond);
  CHECK(host.go().alive());
  CHECK(host.go().oom_kills() == 2);
  int ok = 0;
  host.small_rpc(5, [&](const RpcResult& r) { ok += r.ok; });
  sim.run_until(sim.now() + sim::kSecond);
  CHECK(ok == 1);
  sim.shutdown();
}

TEST_CASE("a memcached restart loses its items and resets pooled connections, which redial") {
  sim::Simulation sim(12);
  DataPlaneHost host(sim, small_host());
  int ok = 0;
  host.small_rpc(20, [&](const RpcResult& r) { ok += r.ok; });
  sim.run_until(sim::kSecond);
  REQUIRE(ok == 1);
  REQUIRE(host.cache_server().items() > 0);
  REQUIRE(host.cache_client().idle_conns() > 0);
  const auto errors_before = host.stats().cache_errors;
  host.set_cache_down(true);
  CHECK(host.cache_server().items() == 0);
  // While down: dials are refused, the handler falls back to Scylla; the RPC still succeeds.
  host.small_rpc(20, [&](const RpcResult& r) { ok += r.ok; });
  sim.run_until(sim.now() + sim::kSecond);
  CHECK(ok == 2);
  const auto errors_down = host.stats().cache_errors;
  CHECK(errors_down > errors_before);
  host.set_cache_down(false);
  CHECK(host.cache_restarts() == 1);
  // Back up and empty: the first requests miss, then fill it again; no new errors once the
  // stale connections are gone.
  host.small_rpc(20, [&](const RpcResult& r) { ok += r.ok; });
  sim.run_until(sim.now() + sim::kSecond);
  host.small_rpc(20, [&](const RpcResult& r) { ok += r.ok; });
  sim.run_until(sim.now() + sim::kSecond);
  CHECK(ok == 4);
  CHECK(host.cache_server().items() > 0);
  CHECK_NOTHROW(host.kernel().check_invariants());
  sim.shutdown();
}

TEST_CASE("stale pooled connections of a restarted memcached read EOF and are redialled") {
  sim::Simulation sim(13);
  DataPlaneHost host(sim, small_host());
  int ok = 0;
  host.small_rpc(20, [&](const RpcResult& r) { ok += r.ok; });
  sim.run_until(sim::kSecond);
  REQUIRE(host.cache_client().idle_conns() > 0);
  // A restart shorter than any request: no dial sees it down, only the pooled connections do.
  host.set_cache_down(true);
  host.set_cache_down(false);
  const auto errors_before = host.stats().cache_errors;
  host.small_rpc(20, [&](const RpcResult& r) { ok += r.ok; });
  sim.run_until(sim.now() + sim::kSecond);
  CHECK(ok == 2);
  CHECK(host.stats().cache_errors > errors_before);
  sim.shutdown();
}

TEST_CASE("a forced stop-the-world holds every goroutine for its length") {
  sim::Simulation sim(14);
  DataPlaneHost host(sim, small_host());
  sim.run_until(sim::kSecond);
  host.set_gc_paused(true);
  sim::Time answered = -1;
  host.small_rpc(5, [&](const RpcResult& r) {
    if (r.ok) answered = sim.now();
  });
  sim.run_until(sim.now() + 500 * sim::kMillisecond);
  CHECK(answered < 0);  // nothing ran while the world was stopped
  const sim::Time resume = sim.now();
  host.set_gc_paused(false);
  sim.run_until(sim.now() + sim::kSecond);
  CHECK(answered >= resume);
  CHECK(host.go().forced_stws() == 1);
  CHECK(host.go().last_stw() == 500 * sim::kMillisecond);
  CHECK(host.go().invariants_hold());
  sim.shutdown();
}

TEST_CASE("a crash during a forced pause ends it: the restarted process runs") {
  sim::Simulation sim(15);
  DataPlaneHost host(sim, small_host());
  sim.run_until(sim::kSecond);
  host.set_gc_paused(true);
  host.kill();
  sim.run_until(sim.now() + 3 * sim::kSecond);
  REQUIRE(host.go().alive());
  int ok = 0;
  host.small_rpc(5, [&](const RpcResult& r) { ok += r.ok; });
  sim.run_until(sim.now() + sim::kSecond);
  CHECK(ok == 1);
  host.set_gc_paused(false);  // the window's end finds nothing to resume
  CHECK(host.go().forced_stws() == 0);
  sim.shutdown();
}
