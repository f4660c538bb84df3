#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "models/net/dialer.hpp"
#include "models/net/socket_table.hpp"
#include "sim/simulation.hpp"

using namespace skysim::net;
using sim::kMillisecond;
using sim::kSecond;

namespace {

const Endpoint kMemcached = Endpoint::parse("127.0.0.1:11211");
const Ipv4 kFixedIp = Ipv4::parse("127.32.0.1");

// One short-lived connection: dial, handshake, the dialing side closes first.
DialOutcome churn(NetNamespace& ns, Dialer& d, OwnerId owner = 1) {
  DialOutcome out = d.dial(ns, kMemcached, owner);
  if (out.ok()) {
    ns.established(out.socket);
    ns.close(out.socket, CloseMode::kActive);
  }
  return out;
}

// N short-lived connect()-only connections to PEER, each closed first by the dialing side.
void connect_and_close(NetNamespace& ns, Endpoint peer, int n) {
  for (int i = 0; i < n; ++i) {
    DialOutcome out = ns.connect(peer, 1);
    REQUIRE(out.ok());
    ns.established(out.socket);
    ns.close(out.socket, CloseMode::kActive);
  }
}

NetSysctl small_range(std::uint16_t ports) {
  NetSysctl s;
  s.port_lo = 40000;
  s.port_hi = static_cast<std::uint16_t>(40000 + ports - 1);
  return s;
}

}  // namespace

TEST_CASE("errors carry Go's net.OpError text") {
  sim::Simulation sim(1);
  // Two namespaces: in one, the bound ports would also block the connect() path.
  NetNamespace ns(sim, small_range(2), "host");
  NetNamespace other(sim, small_range(2), "other");
  FixedSourceDialer fixed(kFixedIp);
  DefaultDialer plain;
  REQUIRE(fixed.dial(ns, kMemcached, 1).ok());
  REQUIRE(fixed.dial(ns, kMemcached, 1).ok());
  DialOutcome bind_fail = fixed.dial(ns, kMemcached, 1);
  CHECK(bind_fail.error.text() ==
        "dial tcp 127.32.0.1:0->127.0.0.1:11211: bind: address already in use");
  REQUIRE(plain.dial(other, kMemcached, 1).ok());
  REQUIRE(plain.dial(other, kMemcached, 1).ok());
  DialOutcome connect_fail = plain.dial(other, kMemcached, 1);
  CHECK(connect_fail.error.text() ==
        "dial tcp 127.0.0.1:11211: connect: cannot assign requested address");
  CHECK(ns.counters().errors(Errno::kEADDRINUSE) == 1);
  CHECK(other.counters().errors(Errno::kEADDRNOTAVAIL) == 1);
  ns.check_invariants();
  other.check_invariants();
}

TEST_CASE("TIME_WAIT count converges to r x 60 s at a steady close rate (Little's law)") {
  sim::Simulation sim(7);
  NetNamespace ns(sim, NetSysctl{}, "host");
  DefaultDialer plain;
  sim::Rng& arrivals = sim.stream("test/arrivals");
  const double rate_per_s = 200;  // r.60 = 12,000 < 28,232: no exhaustion
  sim::Time t = 0;
  sim::Time next_sample = 120 * kSecond;  // after two TIME_WAIT lengths: steady state
  double sum = 0;
  int samples = 0;
  while (t < 600 * kSecond) {
    t += arrivals.exponential_duration(static_cast<sim::Duration>(kSecond / rate_per_s));
    while (next_sample <= t) {
      sim.run_until(next_sample);
      sum += static_cast<double>(ns.time_wait_count());
      ++samples;
      next_sample += kSecond;
    }
    sim.run_until(t);
    REQUIRE(churn(ns, plain).ok());
  }
  double mean = sum / samples;
  CHECK(mean == Approx(rate_per_s * 60).epsilon(0.02));
  CHECK(ns.counters().in_state(SocketState::kEstablished) == 0);
  ns.check_invariants();
}

TEST_CASE("the first dial failure comes when r x 60 s reaches the free port range") {
  // 28,232 ports / 60 s = 470.5 closes/s is the sustainable churn (domain.md §2 model notes).
  const double threshold = 28232.0 / 60.0;
  auto first_failure = [](Dialer& d, NetNamespace& ns, sim::Simulation& sim, double rate) {
    const sim::Duration gap = static_cast<sim::Duration>(kSecond / rate);
    for (sim::Time t = 0; t < 300 * kSecond; t += gap) {
      sim.run_until(t);
      DialOutcome out = churn(ns, d);
      if (!out.ok()) {
        return std::make_pair(t, out.error.code);
      }
    }
    return std::make_pair(sim::kTimeMax, Errno::kNone);
  };
  NetSysctl no_reuse;
  no_reuse.tw_reuse = 0;  // connect-only, as toward a non-loopback peer

  SECTION("bind-first (fixed source IP) fails with EADDRINUSE") {
    for (double factor : {0.98, 1.02}) {
      sim::Simulation sim(1);
      NetNamespace ns(sim, NetSysctl{}, "host");
      FixedSourceDialer fixed(kFixedIp);
      auto [at, code] = first_failure(fixed, ns, sim, threshold * factor);
      if (factor < 1) {
        CHECK(at == sim::kTimeMax);
      } else {
        CHECK(code == Errno::kEADDRINUSE);
        // Every port is taken once before the first expiry: failure at range / r.
        CHECK(sim::to_seconds(at) == Approx(28232.0 / (threshold * factor)).epsilon(0.001));
      }
      ns.check_invariants();
    }
  }
  SECTION("connect-only (no bind) fails with EADDRNOTAVAIL") {
    for (double factor : {0.98, 1.02}) {
      sim::Simulation sim(1);
      NetNamespace ns(sim, no_reuse, "host");
      DefaultDialer plain;
      auto [at, code] = first_failure(plain, ns, sim, threshold * factor);
      if (factor < 1) {
        CHECK(at == sim::kTimeMax);
      } else {
        CHECK(code == Errno::kEADDRNOTAVAIL);
        CHECK(sim::to_seconds(at) == Approx(28232.0 / (threshold * factor)).epsilon(0.001));
      }
      ns.check_invariants();
    }
  }
}

TEST_CASE("random loopback source IPs multiply the port space by the number of IPs") {
  // Reduced: 500 ports and 4 source IPs (127.1.0.1-4) instead of 28,232 and 16,516,096.
  const double rate_per_s = 25;  // r.60 = 1,500: three times one IP's range, 75% of four
  auto failures_at = [rate_per_s](std::uint32_t ips) {
    sim::Simulation sim(3);
    NetNamespace ns(sim, small_range(500), "host");
    RandomLoopbackDialer spread(sim.stream("host/dialer"), LoopbackSpread{1, 1, ips});
    std::uint64_t failures = 0;
    for (sim::Time t = 0; t < 400 * kSecond;
         t += static_cast<sim::Duration>(kSecond / rate_per_s)) {
      sim.run_until(t);
      DialOutcome out = churn(ns, spread);
      if (!out.ok()) {
        CHECK(out.error.text().find("bind: address already in use") != std::string::npos);
        ++failures;
      }
    }
    CHECK(ns.local_ips_in_use() == ips);
    ns.check_invariants();
    return failures;
  };
  // r.60 = 1,500 > 500: one IP cannot hold the churn, four can.
  CHECK(failures_at(1) > 0);
  CHECK(failures_at(4) == 0);
}

TEST_CASE("saturated random loopback dialing holds IPs x ports TIME_WAIT sockets") {
  sim::Simulation sim(3);
  NetNamespace ns(sim, small_range(500), "host");
  RandomLoopbackDialer spread(sim.stream("host/dialer"), LoopbackSpread{1, 1, 4});
  std::uint64_t failures = 0;
  for (sim::Time t = 0; t < 90 * kSecond; t += kSecond / 200) {
    sim.run_until(t);
    failures += churn(ns, spread).ok() ? 0 : 1;
  }
  CHECK(failures > 0);
  CHECK(ns.time_wait_count() == 4 * 500);
  ns.check_invariants();
}

TEST_CASE("the band-aid's source IPs follow 127.(1+rand 254).(rand 256).(1+rand 254)") {
  sim::Simulation sim(11);
  RandomLoopbackDialer d(sim.stream("dialer"));
  CHECK(LoopbackSpread{}.addresses() == 16'516'096);
  for (int i = 0; i < 10000; ++i) {
    std::uint32_t ip = d.pick_source().value;
    REQUIRE((ip >> 24) == 127);
    REQUIRE(((ip >> 16) & 0xFF) >= 1);
    REQUIRE(((ip >> 16) & 0xFF) <= 254);
    REQUIRE((ip & 0xFF) >= 1);
    REQUIRE((ip & 0xFF) <= 254);
  }
  CHECK_THROWS_WITH(LoopbackSpread({0, 1, 1}).validate(), Catch::Contains("octet counts"));
}

TEST_CASE("TIME_WAIT belongs to the namespace: it outlives the process that closed") {
  sim::Simulation sim(1);
  NetNamespace ns(sim, NetSysctl{}, "pod");
  FixedSourceDialer fixed(kFixedIp);
  const OwnerId old_process = 1;
  const OwnerId new_process = 2;
  std::vector<SocketId> held;
  for (int i = 0; i < 27800; ++i) {
    DialOutcome out = fixed.dial(ns, kMemcached, old_process);
    REQUIRE(out.ok());
    ns.established(out.socket);
    held.push_back(out.socket);
  }
  DialOutcome pending = fixed.dial(ns, kMemcached, old_process);  // still in SYN_SENT
  REQUIRE(pending.ok());
  sim.run_until(10 * kSecond);
  // The crash: the kernel closes every descriptor; the dead process was the active closer.
  CHECK(ns.close_all(old_process) == 27801);
  CHECK(ns.open_sockets(old_process) == 0);
  CHECK(ns.time_wait_count() == 27800);  // the SYN_SENT one had no peer to say FIN to
  CHECK_FALSE(ns.is_open(held.front()));
  CHECK(ns.state(held.front()) == SocketState::kTimeWait);
  ns.check_invariants();

  // The restarted process tries to rebuild a 1000-connection pool: only 432 ports are free.
  int built = 0;
  DialOutcome last;
  for (int i = 0; i < 1000; ++i) {
    last = fixed.dial(ns, kMemcached, new_process);
    if (!last.ok()) {
      break;
    }
    ns.established(last.socket);
    ++built;
  }
  CHECK(built == 28232 - 27800);
  CHECK(last.error.code == Errno::kEADDRINUSE);
  sim.run_until(10 * kSecond + 60 * kSecond - 1);
  CHECK(ns.time_wait_count() == 27800);
  sim.run_until(10 * kSecond + 60 * kSecond);
  CHECK(ns.time_wait_count() == 0);
  CHECK(ns.free_bind_ports(kFixedIp) == 28232 - 432);
  ns.check_invariants();
}

TEST_CASE("tcp_tw_reuse=2 recycles loopback TIME_WAIT after 1 s for connect(), not for bind()") {
  // Each path in a namespace of its own: in a shared one the bound TIME_WAIT would block
  // connect() on every port (next test), which is the kernel's rule, not tcp_tw_reuse's.
  sim::Simulation sim(1);
  NetNamespace connect_ns(sim, NetSysctl{}, "connect");  // tw_reuse = 2, delay 1 s: defaults
  NetNamespace bind_ns(sim, NetSysctl{}, "bind");
  DefaultDialer plain;
  FixedSourceDialer fixed(kFixedIp);
  for (int i = 0; i < 28232; ++i) {
    REQUIRE(churn(connect_ns, plain).ok());
    REQUIRE(churn(bind_ns, fixed).ok());
  }
  CHECK(connect_ns.time_wait_count() == 28232);
  CHECK(bind_ns.time_wait_count() == 28232);
  CHECK(churn(connect_ns, plain).error.code == Errno::kEADDRNOTAVAIL);  // younger than 1 s
  CHECK(churn(bind_ns, fixed).error.code == Errno::kEADDRINUSE);
  sim.run_until(999 * kMillisecond);
  CHECK_FALSE(churn(connect_ns, plain).ok());
  sim.run_until(kSecond);
  for (int i = 0; i < 100; ++i) {
    REQUIRE(churn(connect_ns, plain).ok());  // takes over the oldest TIME_WAIT tuples
  }
  CHECK(connect_ns.counters().time_wait_reused == 100);
  CHECK(churn(bind_ns, fixed).error.code == Errno::kEADDRINUSE);  // bind path: 60 s is absolute
  sim.run_until(59 * kSecond);
  CHECK_FALSE(churn(bind_ns, fixed).ok());
  sim.run_until(60 * kSecond);
  CHECK(churn(bind_ns, fixed).ok());
  connect_ns.check_invariants();
  bind_ns.check_invariants();
}

TEST_CASE("a bound socket's TIME_WAIT blocks connect() on its port from every address, to every peer") {
  // Linux keeps one bind bucket per (namespace, port); bind() marks it and connect()'s port
  // search skips marked buckets (measured: tests/models/net/test_kernel_port_rules.cpp).
  sim::Simulation sim(1);
  NetNamespace ns(sim, small_range(16), "pod");
  FixedSourceDialer fixed(kFixedIp);
  DefaultDialer plain;
  const Endpoint scylla = Endpoint::parse("10.2.0.7:9042");
  for (int i = 0; i < 16; ++i) {
    REQUIRE(churn(ns, fixed).ok());
  }
  CHECK(ns.free_connect_ports(kLoopback, kMemcached) == 0);
  CHECK(ns.free_connect_ports(NetSysctl{}.host_ip, scylla) == 0);
  CHECK(plain.dial(ns, kMemcached, 2).error.code == Errno::kEADDRNOTAVAIL);
  CHECK(plain.dial(ns, scylla, 2).error.code == Errno::kEADDRNOTAVAIL);  // another address
  CHECK(ns.bind_connect(kFixedIp, kMemcached, 2, true).error.code == Errno::kEADDRNOTAVAIL);
  CHECK(ns.bind_connect(kFixedIp, kMemcached, 2).error.code == Errno::kEADDRINUSE);
  // bind() is per address: another source IP has every port.
  CHECK(ns.bind_connect(Ipv4::parse("127.9.9.9"), kMemcached, 2).ok());
  // tcp_tw_reuse never applies: connect() does not even look at a bound bucket's sockets.
  sim.run_until(30 * kSecond);
  CHECK_FALSE(plain.dial(ns, scylla, 2).ok());
  sim.run_until(60 * kSecond);
  CHECK(ns.free_connect_ports(NetSysctl{}.host_ip, scylla) == 15);  // 127.9.9.9's bind is open
  DialOutcome back = plain.dial(ns, scylla, 2);
  REQUIRE(back.ok());
  ns.check_invariants();
}

TEST_CASE("a restarted process's connect()-only dials get only the ports the dead one's binds left") {
  sim::Simulation sim(1);
  NetNamespace ns(sim, NetSysctl{}, "pod");
  FixedSourceDialer fixed(kFixedIp);
  DefaultDialer plain;
  const Endpoint scylla = Endpoint::parse("10.2.0.7:9042");
  for (int i = 0; i < 27800; ++i) {
    DialOutcome out = fixed.dial(ns, kMemcached, 1);
    REQUIRE(out.ok());
    ns.established(out.socket);
  }
  ns.close_all(1);  // the crash: 27,800 bound TIME_WAIT sockets on 127.32.0.1
  int built = 0;
  while (built < 1000 && plain.dial(ns, scylla, 2).ok()) {
    ++built;
  }
  CHECK(built == 28232 - 27800);
  sim.run_until(60 * kSecond);
  CHECK(ns.free_connect_ports(NetSysctl{}.host_ip, scylla) == 28232 - 432);
  ns.check_invariants();
}

TEST_CASE("tcp_tw_reuse modes: 0 never, 2 only for loopback, 1 for any peer") {
  const Endpoint remote_peer = Endpoint::parse("10.1.2.3:11211");
  for (int mode : {0, 1, 2}) {
    for (Endpoint peer : {kMemcached, remote_peer}) {
      sim::Simulation sim(1);
      NetSysctl s = small_range(10);
      s.tw_reuse = mode;
      NetNamespace ns(sim, s, "host");
      connect_and_close(ns, peer, 10);
      sim.run_until(2 * kSecond);
      bool want = mode == 1 || (mode == 2 && peer.ip.is_loopback());
      INFO("tw_reuse=" << mode << " peer=" << peer.str());
      CHECK(ns.connect(peer, 1).ok() == want);
      ns.check_invariants();
    }
  }
}

TEST_CASE("with tcp_tw_reuse the port search stops at the first TIME_WAIT tuple old enough") {
  // __inet_hash_connect takes the first port whose check_established passes: with every port
  // of a full range in TIME_WAIT toward the peer, k of r old enough to take over, a random
  // start meets one after (r + 1) / (k + 1) ports, not at the end of the range.
  const Endpoint peer = Endpoint::parse("10.1.2.3:11211");
  sim::Simulation sim(1);
  NetSysctl s = small_range(100);
  s.tw_reuse = 1;
  NetNamespace ns(sim, s, "host");
  connect_and_close(ns, peer, 50);
  sim.run_until(2 * kSecond);        // these 50 are old enough now
  connect_and_close(ns, peer, 50);  // and these 50 are not: the range is full
  DialOutcome half = ns.connect(peer, 1);
  REQUIRE(half.ok());
  CHECK(half.ports_scanned == 101 / 51);
  ns.check_invariants();
  sim.run_until(4 * kSecond);  // all 99 left are old enough
  DialOutcome all = ns.connect(peer, 1);
  REQUIRE(all.ok());
  CHECK(all.ports_scanned == 1);
  ns.check_invariants();
  // None old enough: the search walks the whole range and fails.
  NetNamespace fresh(sim, s, "fresh");
  connect_and_close(fresh, peer, 100);
  DialOutcome none = fresh.connect(peer, 1);
  REQUIRE_FALSE(none.ok());
  CHECK(none.ports_scanned == 100);
  fresh.check_invariants();
}

TEST_CASE("sysctl -w net.ipv4.tcp_tw_reuse during a run applies to the next connect()") {
  const Endpoint peer = Endpoint::parse("10.1.2.3:11211");
  sim::Simulation sim(1);
  NetSysctl s = small_range(10);
  s.tw_reuse = 2;  // the default: a peer on another host reuses nothing
  NetNamespace ns(sim, s, "host");
  connect_and_close(ns, peer, 10);
  sim.run_until(2 * kSecond);
  CHECK_FALSE(ns.connect(peer, 1).ok());
  ns.set_tw_reuse(1);
  CHECK(ns.connect(peer, 1).ok());  // the TIME_WAIT closed 2 s ago are taken over at once
  CHECK(ns.sysctl().tw_reuse == 1);
  CHECK_THROWS_WITH(ns.set_tw_reuse(3), Catch::Contains("tcp_tw_reuse"));
  CHECK(ns.sysctl().tw_reuse == 1);
  ns.check_invariants();
}

TEST_CASE("sysctl -w net.ipv4.ip_local_port_range during a run: the next search uses it") {
  // 10 ports toward one peer, all in TIME_WAIT: connect() fails. Widened to 20, the next ten
  // take 40010..40019; narrowed to 40010..40014, the five TIME_WAIT tuples left outside it stay
  // held (and counted), but the search sees only the range: full. A bind() on a fresh address
  // takes the range's low end. tcp_tw_reuse takes over only a tuple inside the range.
  const Endpoint peer = Endpoint::parse("10.1.2.3:11211");
  sim::Simulation sim(1);
  NetNamespace ns(sim, small_range(10), "host");
  connect_and_close(ns, peer, 10);
  CHECK(ns.free_connect_ports(ns.sysctl().host_ip, peer) == 0);
  CHECK_FALSE(ns.connect(peer, 1).ok());
  ns.set_port_range(40000, 40019);
  std::vector<std::uint16_t> got;
  for (int i = 0; i < 10; ++i) {
    DialOutcome out = ns.connect(peer, 1);
    REQUIRE(out.ok());
    got.push_back(out.local.port);
    ns.established(out.socket);
    ns.close(out.socket, CloseMode::kActive);
  }
  std::sort(got.begin(), got.end());
  CHECK(got.front() == 40010);
  CHECK(got.back() == 40019);
  CHECK_FALSE(ns.connect(peer, 1).ok());
  ns.check_invariants();
  ns.set_port_range(40010, 40014);
  CHECK(ns.time_wait_count() == 20);  // nothing held was dropped
  CHECK_FALSE(ns.connect(peer, 1).ok());
  const DialOutcome bound = ns.bind_connect(Ipv4::parse("10.0.0.9"), peer, 1);
  REQUIRE(bound.ok());
  CHECK(bound.local.port == 40010);
  ns.close(bound.socket, CloseMode::kAbort);
  sim.run_until(2 * kSecond);
  ns.set_tw_reuse(1);
  const DialOutcome reused = ns.connect(peer, 1);
  REQUIRE(reused.ok());
  CHECK(reused.local.port >= 40010);  // the oldest tuples (40000..40009) are outside the range
  CHECK(reused.local.port <= 40014);
  ns.check_invariants();
  CHECK_THROWS_WITH(ns.set_port_range(40020, 40019), Catch::Contains("ip_local_port_range"));
  CHECK(ns.sysctl().port_lo == 40010);
  sim.run_until(70 * kSecond);  // every TIME_WAIT expires, in the range or not
  CHECK(ns.time_wait_count() == 0);
  ns.check_invariants();
}

TEST_CASE("SO_LINGER 0 closes with RST and leaves no TIME_WAIT; passive close holds nothing") {
  sim::Simulation sim(1);
  NetNamespace ns(sim, small_range(5), "host");
  FixedSourceDialer fixed(kFixedIp);
  for (int i = 0; i < 100; ++i) {
    DialOutcome out = fixed.dial(ns, kMemcached, 1);
    REQUIRE(out.ok());
    ns.established(out.socket);
    ns.close(out.socket, i % 2 == 0 ? CloseMode::kAbort : CloseMode::kPassive);
  }
  CHECK(ns.time_wait_count() == 0);
  CHECK(ns.counters().closed_abort == 50);
  CHECK(ns.free_bind_ports(kFixedIp) == 5);
  ns.check_invariants();
}

TEST_CASE("IP_BIND_ADDRESS_NO_PORT shares a fixed IP's ports across destinations") {
  const Endpoint other = Endpoint::parse("127.0.0.2:11211");
  for (bool no_port : {false, true}) {
    sim::Simulation sim(1);
    NetNamespace ns(sim, small_range(100), "host");
    FixedSourceDialer d(kFixedIp, no_port);
    int opened = 0;
    for (Endpoint peer : {kMemcached, other}) {
      for (int i = 0; i < 100; ++i) {
        DialOutcome out = d.dial(ns, peer, 1);
        if (!out.ok()) {
          CHECK(out.error.text() == "dial tcp 127.32.0.1:0->" + peer.str() +
                                        (no_port ? ": connect: cannot assign requested address"
                                                 : ": bind: address already in use"));
          break;
        }
        ++opened;
      }
    }
    CHECK(opened == (no_port ? 200 : 100));
    ns.check_invariants();
  }
}

TEST_CASE("a port reserved by bind blocks connect()'s autobind on that IP, and vice versa") {
  sim::Simulation sim(1);
  NetNamespace ns(sim, small_range(4), "host");
  FixedSourceDialer loopback_bind(kLoopback);
  DefaultDialer plain;
  REQUIRE(loopback_bind.dial(ns, Endpoint::parse("127.0.0.9:80"), 1).ok());
  REQUIRE(plain.dial(ns, kMemcached, 1).ok());
  CHECK(ns.free_connect_ports(kLoopback, kMemcached) == 2);
  CHECK(ns.free_bind_ports(kLoopback) == 2);
  REQUIRE(plain.dial(ns, kMemcached, 1).ok());
  REQUIRE(plain.dial(ns, kMemcached, 1).ok());
  CHECK_FALSE(plain.dial(ns, kMemcached, 1).ok());
  // A different destination may reuse the connect()-held ports, but not the bound one.
  CHECK(ns.free_connect_ports(kLoopback, Endpoint::parse("127.0.0.1:6379")) == 3);
  ns.check_invariants();
}

TEST_CASE("tcp_max_tw_buckets destroys TIME_WAIT sockets over the cap") {
  sim::Simulation sim(1);
  NetSysctl s;
  s.max_tw_buckets = 10;
  NetNamespace ns(sim, s, "host");
  FixedSourceDialer fixed(kFixedIp);
  for (int i = 0; i < 25; ++i) {
    REQUIRE(churn(ns, fixed).ok());
  }
  CHECK(ns.time_wait_count() == 10);
  CHECK(ns.counters().time_wait_dropped_overflow == 15);
  ns.check_invariants();
}

TEST_CASE("random socket traffic keeps every socket in exactly one state") {
  sim::Simulation sim(99);
  NetSysctl s = small_range(64);
  s.time_wait = 5 * kSecond;
  NetNamespace ns(sim, s, "host");
  sim::Rng& rng = sim.stream("fuzz");
  DefaultDialer plain;
  FixedSourceDialer fixed(kFixedIp);
  FixedSourceDialer no_port(kFixedIp, true);
  RandomLoopbackDialer spread(sim.stream("spread"), LoopbackSpread{1, 1, 3});
  Dialer* dialers[] = {&plain, &fixed, &no_port, &spread};
  const Endpoint peers[] = {kMemcached, Endpoint::parse("127.0.0.1:6379")};
  std::vector<SocketId> open;
  sim::Time t = 0;
  for (int step = 0; step < 20000; ++step) {
    t += rng.uniform_int(0, 20) * kMillisecond;
    sim.run_until(t);
    if (open.empty() || rng.bernoulli(0.55)) {
      Dialer& d = *dialers[rng.uniform_int(0, 3)];
      DialOutcome out = d.dial(ns, peers[rng.uniform_int(0, 1)], rng.uniform_int(1, 3));
      if (out.ok()) {
        if (rng.bernoulli(0.9)) {
          ns.established(out.socket);
        }
        open.push_back(out.socket);
      }
    } else {
      std::size_t k = static_cast<std::size_t>(rng.uniform_int(0, open.size() - 1));
      std::swap(open[k], open.back());
      if (ns.is_open(open.back())) {
        ns.close(open.back(), static_cast<CloseMode>(rng.uniform_int(0, 2)));
      }
      open.pop_back();
    }
    if (step % 500 == 0) {
      ns.close_all(static_cast<OwnerId>(rng.uniform_int(1, 3)));
      ns.check_invariants();
    }
  }
  ns.check_invariants();
  CHECK(ns.counters().opened > 5000);
  CHECK(ns.counters().errors(Errno::kEADDRINUSE) > 0);
  CHECK(ns.counters().errors(Errno::kEADDRNOTAVAIL) > 0);
}

TEST_CASE("bad sysctl values and addresses are rejected with the knob's name") {
  sim::Simulation sim(1);
  NetSysctl s;
  s.tw_reuse = 3;
  CHECK_THROWS_WITH(NetNamespace(sim, s, "h"), Catch::Contains("tcp_tw_reuse"));
  s = NetSysctl{};
  s.port_lo = 61000;
  s.port_hi = 60000;
  CHECK_THROWS_WITH(NetNamespace(sim, s, "h"), Catch::Contains("ip_local_port_range"));
  CHECK_THROWS_WITH(Ipv4::parse("127.0.0"), Catch::Contains("127.0.0"));
  CHECK_THROWS_WITH(Ipv4::parse("127.0.0.256"), Catch::Contains("IPv4"));
  CHECK_THROWS_WITH(Endpoint::parse("127.0.0.1"), Catch::Contains("ip:port"));
  CHECK(Endpoint::parse("127.0.0.1:11211").str() == "127.0.0.1:11211");
  NetNamespace ns(sim, NetSysctl{}, "h");
  CHECK_THROWS_AS(ns.close(SocketId{}, CloseMode::kActive), std::logic_error);
}

TEST_CASE("the port search examines (r + 1) / (f + 1) ports, and the whole range when none is free") {
  sim::Simulation sim(1);
  NetNamespace ns(sim, small_range(100), "pod");
  FixedSourceDialer fixed(kFixedIp);
  // Empty range: the first port tried is free.
  DialOutcome first = fixed.dial(ns, kMemcached, 1);
  REQUIRE(first.ok());
  CHECK(first.ports_scanned == 1);
  // Hold 49 more: 50 of 100 free, a random start meets a free port after ~2.
  for (int i = 0; i < 49; ++i) REQUIRE(fixed.dial(ns, kMemcached, 1).ok());
  DialOutcome half = fixed.dial(ns, kMemcached, 1);
  REQUIRE(half.ok());
  CHECK(half.ports_scanned == 101 / 51);
  for (int i = 0; i < 48; ++i) REQUIRE(fixed.dial(ns, kMemcached, 1).ok());
  DialOutcome last = fixed.dial(ns, kMemcached, 1);  // 1 of 100 free
  REQUIRE(last.ok());
  CHECK(last.ports_scanned == 101 / 2);
  // Full: bind(ip, 0) walks every port before EADDRINUSE.
  DialOutcome failed = fixed.dial(ns, kMemcached, 1);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error.code == Errno::kEADDRINUSE);
  CHECK(failed.ports_scanned == 100);
  // connect()'s autobind skips every bound port, so here it walks the whole range too...
  DefaultDialer plain;
  DialOutcome blocked = plain.dial(ns, kMemcached, 1);
  REQUIRE_FALSE(blocked.ok());
  CHECK(blocked.ports_scanned == 100);
  // ...and in a namespace without binds it searches its own 4-tuple space the same way.
  NetNamespace fresh(sim, small_range(100), "fresh");
  DialOutcome autobind = plain.dial(fresh, kMemcached, 1);
  REQUIRE(autobind.ok());
  CHECK(autobind.ports_scanned == 1);
}
