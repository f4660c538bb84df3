#include <catch2/catch.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "models/memcached/client.hpp"
#include "models/memcached/server.hpp"
#include "models/net/dialer.hpp"
#include "sim/process.hpp"

using namespace skysim;
using namespace skysim::memcached;
using net::Endpoint;
using sim::kMicrosecond;
using sim::kMillisecond;
using sim::kSecond;

namespace {

const Endpoint kAddr = Endpoint::parse("127.0.0.1:11211");
const net::Ipv4 kFixedIp = net::Ipv4::parse("127.32.0.1");

sim::Process do_get(Client& mc, std::string key, std::vector<McResult>& out) {
  out.push_back(co_await mc.get(std::move(key)));
}

// Records when the op returned.
sim::Process timed_get(Client& mc, std::string key, std::vector<sim::Time>& done_at) {
  co_await mc.get(std::move(key));
  sim::ProcState& me = co_await sim::this_process();
  done_at.push_back(me.sim->now());
}

sim::Process do_set(Client& mc, std::string key, std::uint32_t bytes, std::vector<McResult>& out) {
  out.push_back(co_await mc.set(std::move(key), McItem{bytes, 0}));
}

// A handler's URI loop in the data plane: get, and on a miss set (domain.md §1.4).
sim::Process get_or_fill(Client& mc, std::string key, std::vector<McResult>& out) {
  McResult r = co_await mc.get(key);
  if (r.status == McStatus::kCacheMiss) {
    r = co_await mc.set(key, McItem{300, 0});
  }
  out.push_back(r);
}

sim::Task<> in_kernel(sim::Duration d) { co_await sim::sleep(d); }

// An ephemeral range of `ports` ports from 40000: small enough for a test to exhaust.
net::NetSysctl ports(std::uint16_t n) {
  net::NetSysctl s;
  s.port_lo = 40000;
  s.port_hi = static_cast<std::uint16_t>(40000 + n - 1);
  return s;
}

ServerConfig roomy_server() {
  ServerConfig c;
  c.max_connections = 1'000'000;  // the outage's server accepted the whole storm
  return c;
}

ClientConfig pool_of(int idle) {
  ClientConfig c;
  c.max_idle_conns = idle;
  return c;
}

struct Host {
  explicit Host(std::uint64_t seed, net::NetSysctl s = {}, ServerConfig sc = roomy_server())
      : sim(seed), ns(sim, s, "dataplane-pod"), server(sim, kAddr, sc, "memcached") {}
  ~Host() { sim.shutdown(); }
  sim::Simulation sim;
  net::NetNamespace ns;
  Server server;
};

std::size_t count(const std::vector<McResult>& rs, McStatus s) {
  std::size_t n = 0;
  for (const McResult& r : rs) {
    n += r.status == s ? 1 : 0;
  }
  return n;
}

}  // namespace

TEST_CASE("k concurrent ops with MaxIdleConns I leave min(k, I) idle and (k - I)+ TIME_WAIT") {
  for (auto [k, idle] : {std::pair{10, 3}, std::pair{3, 10}, std::pair{5000, 1000}}) {
    Host h(1);
    net::FixedSourceDialer dialer(kFixedIp);
    Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(idle), 1);
    std::vector<McResult> out;
    for (int i = 0; i < k; ++i) {
      h.sim.spawn(do_get(mc, "post/" + std::to_string(i), out));
    }
    h.sim.run();
    INFO("k=" << k << " I=" << idle);
    CHECK(out.size() == static_cast<std::size_t>(k));
    CHECK(count(out, McStatus::kCacheMiss) == static_cast<std::size_t>(k));
    CHECK(mc.stats().dials == static_cast<std::uint64_t>(k));  // no waiting for a free conn
    CHECK(mc.idle_conns() == static_cast<std::size_t>(std::min(k, idle)));
    CHECK(h.ns.time_wait_count() == static_cast<std::uint64_t>(std::max(k - idle, 0)));
    CHECK(mc.stats().closed_pool_full == static_cast<std::uint64_t>(std::max(k - idle, 0)));
    CHECK(h.server.stats().curr_connections == static_cast<std::uint64_t>(std::min(k, idle)));
    h.ns.check_invariants();
  }
}

TEST_CASE("the idle pool is LIFO and sequential ops reuse one connection") {
  Host h(1);
  net::DefaultDialer dialer;
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(2), 1);
  std::vector<McResult> out;
  h.sim.spawn(do_set(mc, "k", 42, out));
  h.sim.run();
  for (int i = 0; i < 5; ++i) {
    h.sim.spawn(do_get(mc, "k", out));
    h.sim.run();
  }
  CHECK(mc.stats().dials == 1);
  CHECK(mc.stats().idle_reused == 5);
  CHECK(out.back().ok());
  CHECK(out.back().item.value_bytes == 42);
  CHECK(h.server.stats().get_hits == 5);
  // An op takes one loopback RTT plus the worker's service time.
  sim::Time start = h.sim.now();
  std::vector<sim::Time> done_at;
  h.sim.spawn(timed_get(mc, "k", done_at));
  h.sim.run();
  REQUIRE(done_at.size() == 1);
  CHECK(done_at[0] - start == mc.config().loopback_rtt + h.server.config().service_time);
}

TEST_CASE("get-or-fill stores on a miss, and the server counts hits, misses and sets") {
  Host h(1);
  net::DefaultDialer dialer;
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(10), 1);
  std::vector<McResult> out;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 20; ++i) {
      h.sim.spawn(get_or_fill(mc, "post/" + std::to_string(i), out));
    }
    h.sim.run();
  }
  CHECK(count(out, McStatus::kOk) == 40);
  CHECK(h.server.stats().get_misses == 20);
  CHECK(h.server.stats().get_hits == 20);
  CHECK(h.server.stats().sets == 20);
  CHECK(h.server.items() == 20);
}

TEST_CASE("dial errors reach the caller unchanged, and the bind error is the outage's text") {
  Host h(1, ports(100));
  net::FixedSourceDialer dialer(kFixedIp);
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(10), 1);
  std::vector<McResult> out;
  for (int i = 0; i < 150; ++i) {
    h.sim.spawn(do_get(mc, "post/" + std::to_string(i), out));
  }
  h.sim.run();
  REQUIRE(count(out, McStatus::kDialError) == 50);
  for (const McResult& r : out) {
    if (r.status == McStatus::kDialError) {
      CHECK(r.error_text() ==
            "dial tcp 127.32.0.1:0->127.0.0.1:11211: bind: address already in use");
    }
  }
  CHECK(h.ns.counters().errors(net::Errno::kEADDRINUSE) == 50);
  CHECK(mc.stats().dial_errors == 50);
  CHECK(h.ns.time_wait_count() == 90);
}

TEST_CASE(
    "a crash leaves the client's sockets in TIME_WAIT; the restarted process cannot "
    "rebuild a 1000-connection pool while fewer than 1000 ports are free") {
  Host h(5);  // full default range: 28,232 ports
  net::FixedSourceDialer dialer(kFixedIp);
  auto first = std::make_unique<Client>(h.sim, h.ns, dialer, std::vector<Server*>{&h.server},
                                        pool_of(1000), /*owner=*/1);
  std::vector<McResult> out;
  const int storm = 27'500;  // one bad GetPostRecord batch: a goroutine (and a dial) per URI
  for (int i = 0; i < storm; ++i) {
    h.sim.spawn(do_get(*first, "post/" + std::to_string(i), out));
  }
  h.sim.run();
  CHECK(count(out, McStatus::kCacheMiss) == static_cast<std::size_t>(storm));
  CHECK(first->idle_conns() == 1000);
  CHECK(h.ns.time_wait_count() == static_cast<std::uint64_t>(storm - 1000));

  h.sim.run_until(h.sim.now() + 5 * kSecond);
  first->crash();  // OOM kill: the kernel closes the 1000 idle connections as active closer
  CHECK(h.ns.time_wait_count() == static_cast<std::uint64_t>(storm));
  CHECK(h.ns.open_sockets(1) == 0);
  CHECK(h.server.stats().curr_connections == 0);
  const std::uint32_t free_ports = h.ns.free_bind_ports(kFixedIp);
  CHECK(free_ports == 28'232 - storm);
  first.reset();

  // The restarted process: a fresh client, same namespace, same fixed source IP.
  Client second(h.sim, h.ns, dialer, {&h.server}, pool_of(1000), /*owner=*/2);
  out.clear();
  for (int i = 0; i < 1000; ++i) {
    h.sim.spawn(do_get(second, "post/" + std::to_string(i), out));
  }
  h.sim.run();
  CHECK(count(out, McStatus::kCacheMiss) == free_ports);
  CHECK(count(out, McStatus::kDialError) == 1000 - free_ports);
  CHECK(second.idle_conns() == free_ports);
  for (const McResult& r : out) {
    if (!r.resumable()) {
      CHECK(r.error_text() ==
            "dial tcp 127.32.0.1:0->127.0.0.1:11211: bind: address already in use");
    }
  }

  // Once the old TIME_WAIT has run its 60 s, the pool fills.
  h.sim.run_until(h.sim.now() + 60 * kSecond);
  out.clear();
  for (int i = 0; i < 1000; ++i) {
    h.sim.spawn(do_get(second, "post/" + std::to_string(i), out));
  }
  h.sim.run();
  CHECK(count(out, McStatus::kCacheMiss) == 1000);
  CHECK(second.idle_conns() == 1000);
  h.ns.check_invariants();
}

TEST_CASE("a dial spends the kernel's port search in the caller's syscall hook") {
  Host h(1, ports(100));
  net::FixedSourceDialer dialer(kFixedIp);
  ClientConfig cfg = pool_of(10);
  cfg.port_scan_ns = 1000;  // 1 us per port examined
  Client mc(h.sim, h.ns, dialer, {&h.server}, cfg, 1);
  std::vector<sim::Duration> charged;
  mc.set_syscall_hook(
      [&](sim::Duration d) {
        charged.push_back(d);
        return in_kernel(d);
      },
      20 * kMicrosecond);
  std::vector<McResult> out;
  for (int i = 0; i < 150; ++i) {
    h.sim.spawn(do_get(mc, "post/" + std::to_string(i), out));
  }
  h.sim.run();
  REQUIRE(count(out, McStatus::kDialError) == 50);
  // Searches shorter than 20 us are not charged; the 50 failed ones walked all 100 ports.
  std::size_t full_walks = 0;
  for (sim::Duration d : charged) {
    CHECK(d >= 20 * kMicrosecond);
    full_walks += d == 100 * kMicrosecond ? 1 : 0;
  }
  CHECK(full_walks == 50);
  CHECK(charged.size() < 150);
}

TEST_CASE("swapping in the random-loopback dialer (the band-aid) ends the bind errors") {
  net::NetSysctl s = ports(2000);  // keeps the test small; the ratios are what matter
  for (bool band_aid : {false, true}) {
    Host h(9, s);
    net::FixedSourceDialer fixed(kFixedIp);
    net::RandomLoopbackDialer spread(h.sim.stream("dataplane/dialer"));
    Client mc(h.sim, h.ns, fixed, {&h.server}, pool_of(100), 1);
    if (band_aid) {
      mc.set_dialer(spread);
    }
    std::vector<McResult> out;
    for (int batch = 0; batch < 3; ++batch) {  // three bad batches within a minute
      for (int i = 0; i < 1500; ++i) {
        h.sim.spawn(do_get(mc, "post/" + std::to_string(i), out));
      }
      h.sim.run_until(h.sim.now() + 10 * kSecond);
    }
    INFO("band-aid: " << band_aid);
    if (band_aid) {
      CHECK(count(out, McStatus::kDialError) == 0);
      CHECK(h.ns.local_ips_in_use() > 3000);
    } else {
      CHECK(count(out, McStatus::kDialError) > 1000);
    }
    h.ns.check_invariants();
  }
}

TEST_CASE("a slow server times out ops at 500 ms; the client closes and holds TIME_WAIT") {
  ServerConfig slow = roomy_server();
  slow.service_time = 2 * kSecond;
  Host h(1, {}, slow);
  net::DefaultDialer dialer;
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(10), 1);
  std::vector<McResult> out;
  h.sim.spawn(do_get(mc, "k", out));
  h.sim.run_until(kSecond);
  REQUIRE(out.size() == 1);
  CHECK(out[0].status == McStatus::kIoTimeout);
  CHECK(out[0].error_text().rfind("read tcp 127.0.0.1:", 0) == 0);
  CHECK(out[0].error_text().find("->127.0.0.1:11211: i/o timeout") != std::string::npos);
  CHECK(mc.idle_conns() == 0);
  CHECK(h.ns.time_wait_count() == 1);
  h.sim.run();  // the server finishes the abandoned request without waking anyone
  CHECK(h.server.stats().gets == 1);
}

namespace {
sim::Process many_gets(Client& mc, int n, int& answered) {
  for (int i = 0; i < n; ++i) {
    McResult r = co_await mc.get("k" + std::to_string(i % 10));
    if (r.status == McStatus::kOk || r.status == McStatus::kCacheMiss) ++answered;
  }
}
}  // namespace

TEST_CASE("answered requests leave no deadline behind; a timed-out one ends at its deadline") {
  // 2,000 gets in a row, each answered in microseconds, each with gomemcache's 500 ms read
  // deadline: the client keeps those deadlines behind one timer, so nothing of them is left in
  // the event queue (each used to leave a stale wake-up there until its deadline).
  Host h(1);
  net::DefaultDialer dialer;
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(4), 1);
  int answered = 0;
  h.sim.spawn(many_gets(mc, 2'000, answered));
  h.sim.run();
  CHECK(answered == 2'000);
  CHECK(h.sim.stats().stale_pops == 0);
  CHECK(h.sim.stats().peak_pending <= 4);
  // A server slower than the deadline: the get ends exactly 500 ms after its read began (the
  // connection's dial, one loopback round trip, comes before it).
  ServerConfig slow = roomy_server();
  slow.service_time = 2 * kSecond;
  Host s(1, {}, slow);
  const ClientConfig cfg = pool_of(10);
  Client slow_mc(s.sim, s.ns, dialer, {&s.server}, cfg, 1);
  std::vector<sim::Time> done_at;
  s.sim.spawn(timed_get(slow_mc, "k", done_at));
  s.sim.run();
  REQUIRE(done_at.size() == 1);
  CHECK(done_at[0] == cfg.loopback_rtt + cfg.timeout);
}

TEST_CASE("a hung server gives a connect timeout once its accept queue is full; a dead one refuses") {
  ServerConfig no_backlog = roomy_server();
  no_backlog.listen_backlog = 0;  // listen(fd, 0): the queue still holds one handshake
  Host h(1, {}, no_backlog);
  net::FixedSourceDialer dialer(kFixedIp);
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(10), 1);
  std::vector<McResult> out;
  h.server.set_stalled(true);
  h.sim.spawn(do_get(mc, "k", out));  // the kernel completes this handshake: read times out
  h.sim.run();
  h.sim.spawn(do_get(mc, "k", out));  // the queue is full: the SYN is dropped
  const sim::Time second = h.sim.now();
  h.sim.run();
  REQUIRE(out.size() == 2);
  CHECK(out[0].status == McStatus::kIoTimeout);
  CHECK(h.ns.time_wait_count() == 1);  // the client closed the timed-out connection first
  CHECK(out[1].error_text() == "memcache: connect timeout to 127.0.0.1:11211");
  CHECK(h.sim.now() - second == 500 * kMillisecond);
  CHECK(h.server.stats().listen_overflows == 1);
  h.server.set_stalled(false);
  h.server.set_down(true);
  h.sim.spawn(do_get(mc, "k", out));
  h.sim.run();
  CHECK(out[2].error_text() ==
        "dial tcp 127.32.0.1:0->127.0.0.1:11211: connect: connection refused");
  CHECK(h.ns.time_wait_count() == 1);
  CHECK(h.ns.open_sockets(1) == 0);
}

TEST_CASE("a full listen backlog drops SYNs: dials past min(-b, somaxconn) + 1 time out at 500 ms and leave no TIME_WAIT") {
  for (auto [backlog, somaxconn] : {std::pair{1024, 4096}, std::pair{8192, 4096}}) {
    ServerConfig c = roomy_server();
    c.listen_backlog = backlog;
    c.somaxconn = somaxconn;
    Host h(1, {}, c);
    net::DefaultDialer dialer;
    Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(10), 1);
    std::vector<McResult> out;
    h.server.set_stalled(true);
    const int queue = std::min(backlog, somaxconn) + 1;
    const int storm = queue + 300;
    for (int i = 0; i < storm; ++i) {
      h.sim.spawn(do_get(mc, "k" + std::to_string(i), out));
    }
    h.sim.run_until(600 * kMillisecond);
    INFO("backlog " << backlog << ", somaxconn " << somaxconn);
    REQUIRE(out.size() == static_cast<std::size_t>(storm));
    CHECK(count(out, McStatus::kConnectTimeout) == 300u);
    CHECK(count(out, McStatus::kIoTimeout) == static_cast<std::size_t>(queue));
    CHECK(h.server.stats().listen_overflows == 300);
    // Only the connections that completed a handshake and then timed out reading hold
    // TIME_WAIT; the dropped SYNs' sockets were closed in SYN_SENT.
    CHECK(h.ns.time_wait_count() == static_cast<std::uint64_t>(queue));
    h.ns.check_invariants();
  }
}

TEST_CASE("past max_connections the server answers ERROR and closes first: no client TIME_WAIT") {
  ServerConfig tight = roomy_server();
  tight.max_connections = 5;
  Host h(1, {}, tight);
  net::DefaultDialer dialer;
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(10), 1);
  std::vector<McResult> out;
  for (int i = 0; i < 8; ++i) {
    h.sim.spawn(do_get(mc, "k" + std::to_string(i), out));
  }
  h.sim.run();
  CHECK(count(out, McStatus::kCacheMiss) == 5);
  CHECK(count(out, McStatus::kServerError) == 3);
  CHECK(h.server.stats().rejected_connections == 3);
  CHECK(h.ns.time_wait_count() == 0);
  CHECK(mc.idle_conns() == 5);
  for (const McResult& r : out) {
    if (r.status == McStatus::kServerError) {
      CHECK(r.error_text() ==
            "memcache: unexpected line in get response: "
            "\"ERROR Too many open connections\\r\\n\"");
    }
  }
}

TEST_CASE("worker threads serve requests in arrival order: latency grows with the queue") {
  ServerConfig one = roomy_server();
  one.worker_threads = 1;
  one.service_time = 100 * kMicrosecond;
  Host h(1, {}, one);
  net::DefaultDialer dialer;
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(10), 1);
  std::vector<sim::Time> done_at;
  for (int i = 0; i < 10; ++i) {
    h.sim.spawn(timed_get(mc, "k", done_at));
  }
  h.sim.run();
  REQUIRE(done_at.size() == 10);
  // Handshake RTT, half an RTT out, services one after another, half an RTT back.
  for (int i = 0; i < 10; ++i) {
    CHECK(done_at[i] == 2 * mc.config().loopback_rtt + (i + 1) * one.service_time);
  }
  CHECK(h.server.stats().queued_max == 9);
}

TEST_CASE("SO_LINGER 0 on the client leaves no TIME_WAIT for surplus connections") {
  Host h(1);
  net::FixedSourceDialer dialer(kFixedIp);
  ClientConfig c = pool_of(10);
  c.linger_zero = true;
  Client mc(h.sim, h.ns, dialer, {&h.server}, c, 1);
  std::vector<McResult> out;
  for (int i = 0; i < 500; ++i) {
    h.sim.spawn(do_get(mc, "k", out));
  }
  h.sim.run();
  CHECK(mc.stats().closed_pool_full == 490);
  CHECK(h.ns.time_wait_count() == 0);
  CHECK(h.ns.counters().closed_abort == 490);
}

TEST_CASE("killing goroutines mid-request and crashing closes every socket into TIME_WAIT") {
  ServerConfig slowish = roomy_server();
  slowish.service_time = kMillisecond;
  Host h(1, {}, slowish);
  net::FixedSourceDialer dialer(kFixedIp);
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(4), 1);
  std::vector<McResult> out;
  std::vector<sim::ProcessHandle> goroutines;
  for (int i = 0; i < 10; ++i) {
    goroutines.push_back(h.sim.spawn(do_get(mc, "k" + std::to_string(i), out)));
  }
  h.sim.run_until(200 * kMicrosecond);  // all established, requests queued at the server
  CHECK(h.ns.open_sockets(1) == 10);
  mc.crash();
  for (auto& g : goroutines) {
    g.cancel();
  }
  h.sim.run();
  CHECK(out.empty());
  CHECK(h.ns.time_wait_count() == 10);
  CHECK(h.ns.open_sockets(1) == 0);
  CHECK(h.server.stats().curr_connections == 0);
  CHECK(mc.crashed());
  h.ns.check_invariants();
  std::vector<McResult> late;
  h.sim.spawn(do_get(mc, "k", late));
  CHECK_THROWS_WITH(h.sim.run(), Catch::Contains("after its process crashed"));
}

TEST_CASE("cancelled goroutines close their own connections when the client lives on") {
  ServerConfig slowish = roomy_server();
  slowish.service_time = kMillisecond;
  Host h(1, {}, slowish);
  net::DefaultDialer dialer;
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(4), 1);
  std::vector<McResult> out;
  std::vector<sim::ProcessHandle> goroutines;
  for (int i = 0; i < 6; ++i) {
    goroutines.push_back(h.sim.spawn(do_get(mc, "k", out)));
  }
  h.sim.run_until(200 * kMicrosecond);
  for (auto& g : goroutines) {
    g.cancel();
  }
  h.sim.run();
  CHECK(h.ns.time_wait_count() == 6);
  CHECK(mc.open_conns() == 0);
  CHECK(h.server.stats().curr_connections == 0);
}

TEST_CASE("malformed keys and the hot-key flag") {
  Host h(1);
  net::DefaultDialer dialer;
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(2), 1);
  h.server.hot_key_probe = [](std::string_view key) { return key == "celebrity"; };
  std::vector<McResult> out;
  h.sim.spawn(do_get(mc, "bad key", out));
  h.sim.spawn(do_get(mc, "celebrity", out));
  h.sim.spawn(do_get(mc, "nobody", out));
  h.sim.run();
  REQUIRE(out.size() == 3);
  CHECK(out[0].error_text() == "malformed: key is too long or contains invalid characters");
  CHECK(mc.stats().dials == 2);  // the malformed key never took a connection
  CHECK(out[1].hot_key != out[2].hot_key);
  CHECK(mc.stats().hot_key_replies == 1);
}

TEST_CASE("keys spread over servers by crc32 modulo, as gomemcache's PickServer") {
  sim::Simulation sim(1);
  net::NetNamespace ns(sim, {}, "h");
  Server a(sim, kAddr, roomy_server(), "a");
  Server b(sim, Endpoint::parse("127.0.0.2:11211"), roomy_server(), "b");
  net::DefaultDialer dialer;
  Client mc(sim, ns, dialer, {&a, &b}, pool_of(2), 1);
  // crc32("foo") = 0x8c736521 (odd), crc32("bar") = 0x76ff8caa (even).
  CHECK(mc.pick_server("foo") == 1);
  CHECK(mc.pick_server("bar") == 0);
  ClientConfig bad;
  bad.max_idle_conns = 0;
  CHECK_THROWS_WITH(Client(sim, ns, dialer, {&a}, bad, 2), Catch::Contains("max_idle_conns"));
  bad = ClientConfig{};
  bad.timeout = 0;
  CHECK_THROWS_WITH(Client(sim, ns, dialer, {&a}, bad, 2), Catch::Contains("timeout"));
  sim.shutdown();
}

TEST_CASE("the same seed gives the same run") {
  auto run_once = [] {
    Host h(77, ports(1000));
    net::RandomLoopbackDialer spread(h.sim.stream("dialer"), net::LoopbackSpread{1, 2, 2});
    Client mc(h.sim, h.ns, spread, {&h.server}, pool_of(50), 1);
    std::vector<McResult> out;
    for (int i = 0; i < 5000; ++i) {
      h.sim.spawn(get_or_fill(mc, "p" + std::to_string(i % 700), out));
    }
    h.sim.run();
    return std::tuple{h.sim.fingerprint(), h.ns.time_wait_count(), count(out, McStatus::kOk)};
  };
  CHECK(run_once() == run_once());
}

TEST_CASE("a server that dies under queued requests answers them with EOF at once") {
  ServerConfig slowish = roomy_server();
  slowish.worker_threads = 1;
  slowish.service_time = kMillisecond;
  Host h(1, {}, slowish);
  net::DefaultDialer dialer;
  Client mc(h.sim, h.ns, dialer, {&h.server}, pool_of(10), 1);
  std::vector<McResult> out;
  for (int i = 0; i < 3; ++i) {
    h.sim.spawn(do_get(mc, "k", out));
  }
  h.sim.run_until(200 * kMicrosecond);  // one request in service, two queued
  h.server.set_down(true);
  h.sim.run_until(300 * kMicrosecond);
  CHECK(count(out, McStatus::kConnClosed) == 2);  // the queued ones, without waiting 500 ms
  h.sim.run();
  REQUIRE(out.size() == 3);
  CHECK(count(out, McStatus::kConnClosed) == 3);
  CHECK(out[0].error_text() == "EOF");
  CHECK(h.ns.time_wait_count() == 0);  // the server's side went first
  CHECK(mc.open_conns() == 0);
  CHECK(h.server.stats().curr_connections == 0);
}

TEST_CASE("each open connection holds gomemcache's bufio reader and writer until it closes") {
  // k concurrent ops with MaxIdleConns I: k connections open at once (k x 8 KiB), then the
  // surplus k - I close and the pool keeps I (I x 8 KiB) until close_idle frees them.
  constexpr std::int64_t kBuffers = 2 * 4096;  // bufio.NewReader + bufio.NewWriter
  Host h(1);
  net::FixedSourceDialer dialer(kFixedIp);
  ClientConfig cfg = pool_of(3);
  cfg.conn_buffer_bytes = kBuffers;
  Client mc(h.sim, h.ns, dialer, {&h.server}, cfg, 1);
  std::int64_t held = 0, peak = 0;
  mc.set_memory_hook([&](std::int64_t d) {
    held += d;
    peak = std::max(peak, held);
  });
  std::vector<McResult> out;
  for (int i = 0; i < 10; ++i) h.sim.spawn(do_get(mc, "post/" + std::to_string(i), out));
  h.sim.run();
  CHECK(peak == 10 * kBuffers);
  CHECK(held == 3 * kBuffers);
  CHECK(held == static_cast<std::int64_t>(mc.open_conns()) * kBuffers);
  mc.close_idle();
  CHECK(held == 0);
}

TEST_CASE("a failed dial allocates no connection buffers") {
  Host h(1, ports(2));
  net::FixedSourceDialer dialer(kFixedIp);
  ClientConfig cfg = pool_of(1);
  cfg.conn_buffer_bytes = 8192;
  Client mc(h.sim, h.ns, dialer, {&h.server}, cfg, 1);
  std::int64_t held = 0;
  mc.set_memory_hook([&](std::int64_t d) { held += d; });
  std::vector<McResult> out;
  // Two ports: 2 dials succeed, the rest fail with EADDRINUSE while those 2 are open.
  for (int i = 0; i < 6; ++i) h.sim.spawn(do_get(mc, "post/" + std::to_string(i), out));
  h.sim.run();
  CHECK(count(out, McStatus::kDialError) > 0);
  CHECK(held == static_cast<std::int64_t>(mc.open_conns()) * 8192);
  CHECK(held == 8192);  // the one pooled connection
}
