// Machines that several services' processes share (scenarios/machine.hpp): one socket table and
// one set of cores. Each property against its arithmetic: the port range fills when the
// TIME_WAIT both processes leave (Little's law) says so; connect()'s 4-tuple rule keeps a
// process that dials another peer out of it; a core shared by two single-P processes queues
// their work together (M/D/1 alone, far slower together); a dead process leaves the cores to
// the others; a memcached's workers share the cores too (processor sharing and run to
// completion against their arithmetic); tcp_tw_reuse set during the run ends the exhaustion.
// And every wiring mistake is one error at its line.
#include <catch2/catch.hpp>
#include <cmath>

#include <string>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "scenario_fixtures.hpp"

using namespace skysim::scenarios;
using skysim::scenarios::testing::errors_of;
using Ran = skysim::scenarios::testing::TextRun;
using skysim::scenarios::testing::build_error;
using skysim::scenarios::testing::run_scenario_text;
using skysim::scenarios::testing::with;

namespace {

std::string replace(std::string s, const std::string& from, const std::string& to) {
  return with(from, to, std::move(s));
}

// Both worlds below: one datacenter with a machine `node`, whose params follow.
const std::string kHead = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 1m
datacenters:
  east:
    machines:
      node:
)";

// A go-service NAME on machine `node` (PARAMS: its params) whose `get` runs WORK of Go code.
std::string busy_on_node(const std::string& name, const std::string& params,
                         const std::string& work) {
  return "      " + name + ":\n        kind: go-service\n        machine: node\n        params: {" +
         params + "}\n        program:\n          handlers:\n            get:\n              - cpu: "
         "{time: {constant: " + work + "}}\n";
}

// `search` (8 parallel calls a request, one idle connection kept: 7 closes into TIME_WAIT per
// request) and `checkout` (2 calls, 1 close) on machine `node` with a 1,000-port range.
// CHECKOUT_PEER: whom checkout calls.
const std::string kPorts = kHead + R"(        params: {cores: 4, port_range_low: 60000, port_range_high: 60999}
    services:
      store:
        kind: queue-server
        params: {workers: 256, service_time: {constant: 10ms}}
      payments:
        kind: queue-server
        params: {workers: 256, service_time: {constant: 10ms}}
      search:
        kind: go-service
        machine: node
        program:
          clients:
            store: {target: store, max_idle: 1}
          handlers:
            get:
              - errgroup:
                  tasks: 8
                  do:
                    - call: {client: store, endpoint: serve}
      checkout:
        kind: go-service
        machine: node
        program:
          clients:
            peer: {target: CHECKOUT_PEER, max_idle: 1}
          handlers:
            get:
              - errgroup:
                  tasks: 2
                  do:
                    - call: {client: peer, endpoint: serve}
sources:
  searches: {from: east, target: search.get, rate: 10/s, start: +20s}
  checkouts: {from: east, target: checkout.get, rate: 5/s}
invariants: [requests.accounted, go-service.sockets]
)";

// Each service on a machine of its own, with the same range.
std::string on_own_machines(std::string text) {
  text = replace(text,
                 "    machines:\n      node:\n        params: {cores: 4, port_range_low: 60000, "
                 "port_range_high: 60999}\n",
                 "");
  const std::string own = "        params: {cores: 4, port_range_low: 60000, port_range_high: 60999}";
  text = replace(text, "        machine: node", own);
  return replace(text, "        machine: node", own);
}

double first_dial_error_s(const Ran& r, const std::string& host) {
  for (const auto& [h, p] : r.run->phases()) {
    if (h == host && p.what.find("first dial error") != std::string::npos) {
      return static_cast<double>(p.at) / 1e9;
    }
  }
  return -1;
}

// Two single-P processes doing 1 ms of Go code a request, 400/s and 500/s, on one core.
const std::string kCores = kHead + R"(        params: {cores: 1}
    services:
)" + busy_on_node("a", "restart_delay: 10m", "1ms") + busy_on_node("b", "restart_delay: 10m", "1ms") +
                           R"(sources:
  as: {from: east, target: a.get, rate: 400/s}
  bs: {from: east, target: b.get, rate: 500/s}
invariants: [requests.accounted]
)";

double mean_latency_ms(const Ran& r, const std::string& host) {
  const auto& h = r.run->metrics().histogram("handler.latency_ns",
                                             {{"handler", "get"}, {"host", host}});
  return h.mean() / 1e6;
}

}  // namespace

TEST_CASE("machines: two processes on one machine share its ephemeral ports") {
  SECTION("the same peer: one process's TIME_WAIT fills the range for both") {
    Ran r = run_scenario_text(replace(kPorts, "CHECKOUT_PEER", "store"));
    REQUIRE(r.result.invariants_hold());
    // One socket table: both hosts report the machine's TIME_WAIT count.
    CHECK(r.value("net.time_wait{host=east/search/0}") ==
          r.value("net.time_wait{host=east/checkout/0}"));
    CHECK(r.value("machine.time_wait{machine=east/node/0}") ==
          r.value("net.time_wait{host=east/search/0}"));
    CHECK(r.value("machine.processes{machine=east/node/0}") == 2);
    // Little's law on the range: checkout alone leaves 5 sockets/s in TIME_WAIT (300 at +60s,
    // under 1,000: it never runs out on its own, below). From +20 s search adds 70/s; the
    // ~900 ports left at +20 s are gone 900 / 75 = 12 s later.
    const double at = first_dial_error_s(r, "east/checkout/0");
    CHECK(at > 30.0);
    CHECK(at < 34.0);
    CHECK(r.value("client.dial_errors{client=peer,host=east/checkout/0}") > 0);
    CHECK(r.value("handler.failed{handler=get,host=east/checkout/0}") > 0);
  }
  SECTION("on machines of their own, checkout never runs out") {
    Ran r = run_scenario_text(on_own_machines(replace(kPorts, "CHECKOUT_PEER", "store")));
    REQUIRE(r.result.invariants_hold());
    CHECK(r.value("client.dial_errors{client=peer,host=east/checkout/0}") == 0);
    CHECK(r.value("handler.failed{handler=get,host=east/checkout/0}") == 0);
    // search alone: ~1,000 ports at 70/s from +20 s: out at about +34 s.
    const double at = first_dial_error_s(r, "east/search/0");
    CHECK(at > 32.0);
    CHECK(at < 36.0);
  }
  SECTION("another peer: connect()'s 4-tuple rule lets checkout reuse search's ports") {
    // connect() without bind needs only a 4-tuple no socket holds: toward payments, the ports
    // search holds in TIME_WAIT toward store are free.
    Ran r = run_scenario_text(replace(kPorts, "CHECKOUT_PEER", "payments"));
    REQUIRE(r.result.invariants_hold());
    CHECK(r.value("client.dial_errors{client=store,host=east/search/0}") > 0);
    CHECK(r.value("client.dial_errors{client=peer,host=east/checkout/0}") == 0);
  }
}

TEST_CASE("machines: two processes on one machine share its cores") {
  SECTION("each on a core of its own: M/D/1 through its one P") {
    // Mean response S + rho S / (2 (1 - rho)): 1.333 ms at rho 0.4, 1.5 ms at rho 0.5.
    std::string text = replace(kCores, "    machines:\n      node:\n        params: {cores: 1}\n", "");
    text = replace(text, "        machine: node\n        params: {restart_delay: 10m}",
                   "        params: {restart_delay: 10m, cores: 1}");
    text = replace(text, "        machine: node\n        params: {restart_delay: 10m}",
                   "        params: {restart_delay: 10m, cores: 1}");
    Ran r = run_scenario_text(text);
    REQUIRE(r.result.invariants_hold());
    CHECK(mean_latency_ms(r, "east/a/0") == Approx(1.333).epsilon(0.05));
    CHECK(mean_latency_ms(r, "east/b/0") == Approx(1.5).epsilon(0.05));
  }
  SECTION("on one core: their work queues together (load 0.9)") {
    Ran r = run_scenario_text(kCores);
    REQUIRE(r.result.invariants_hold());
    // A single server at load 0.9 with 1 ms jobs: an M/D/1 would answer in 5.5 ms on average.
    // Both processes' requests together (two FIFO Ps sharing the core) come out near that.
    const double a = mean_latency_ms(r, "east/a/0"), b = mean_latency_ms(r, "east/b/0");
    const double na = r.value("handler.ok{handler=get,host=east/a/0}");
    const double nb = r.value("handler.ok{handler=get,host=east/b/0}");
    CHECK(a > 2.5 * 1.333);
    CHECK((a * na + b * nb) / (na + nb) == Approx(5.5).epsilon(0.25));
  }
  SECTION("one process dies: the other has the core to itself") {
    // b crashes at +1 s and stays down (restart_delay 10m): a's requests see a core of their
    // own, M/D/1 at rho 0.4, and none of them fails.
    Ran r = run_scenario_text(kCores +
                              "faults:\n  - {type: crash, at: +1s, target: east/b/0, duration: 1s}\n");
    REQUIRE(r.result.invariants_hold());
    CHECK(r.value("go.crashes{host=east/a/0}") == 0);
    CHECK(r.value("go.crashes{host=east/b/0}") == 1);
    CHECK(r.value("handler.failed{handler=get,host=east/a/0}") == 0);
    CHECK(mean_latency_ms(r, "east/a/0") == Approx(1.333).epsilon(0.1));
  }
}

TEST_CASE("machines: wiring errors are one error each, at their line") {
  const std::string ok = replace(kPorts, "CHECKOUT_PEER", "store");
  REQUIRE(errors_of(ok) == "OK");
  SECTION("a machine that does not exist") {
    const std::string e = errors_of(replace(ok, "        machine: node", "        machine: nod"));
    CHECK_THAT(e, Catch::Contains("t.yaml:18:"));
    CHECK_THAT(e, Catch::Contains("no machine 'nod' in datacenter east"));
    CHECK_THAT(e, Catch::Contains("did you mean 'node'"));
  }
  SECTION("a kind that cannot share a machine") {
    const std::string e = errors_of(replace(
        ok, "        kind: queue-server\n        params: {workers: 256, service_time: {constant: "
            "10ms}}\n      payments:",
        "        kind: queue-server\n        machine: node\n        params: {workers: 256, "
        "service_time: {constant: 10ms}}\n      payments:"));
    CHECK_THAT(e, Catch::Contains("a queue-server service cannot share a machine"));
  }
  SECTION("more hosts than the machine has") {
    const std::string e = errors_of(replace(ok, "      search:\n        kind: go-service\n",
                                            "      search:\n        kind: go-service\n        hosts: 2\n"));
    CHECK_THAT(e, Catch::Contains("2 hosts on machine 'node' of count 1"));
  }
  SECTION("a service setting what is the machine's") {
    const std::string e = errors_of(replace(ok, "        machine: node\n        program:",
                                            "        machine: node\n        params: {cores: 8}\n        program:"));
    CHECK_THAT(e, Catch::Contains("datacenters.east.services.search.params.cores"));
    CHECK_THAT(e, Catch::Contains("cores is the machine's: set it on machine 'node'"));
  }
  SECTION("a machine's own parameters are checked") {
    CHECK_THAT(errors_of(replace(ok, "port_range_low: 60000", "port_range_low: 61000")),
               Catch::Contains("port_range_low"));
    CHECK_THAT(errors_of(replace(ok, "params: {cores: 4,", "params: {cors: 4,")),
               Catch::Contains("unknown key 'cors'"));
    CHECK_THAT(errors_of(replace(ok, "      node:\n        params:", "      node:\n        count: 0\n        params:")),
               Catch::Contains("machine count out of range"));
  }
  SECTION("a timeline sets only what a machine lets change, on a machine that exists") {
    auto at_40s = [&ok](const std::string& set) {
      return ok + "timeline:\n  - at: +40s\n    set: {" + set + "}\n";
    };
    REQUIRE(errors_of(at_40s("datacenters.east.machines.node.params.tcp_tw_reuse: 1")) == "OK");
    CHECK_THAT(errors_of(at_40s("datacenters.east.machines.node.params.cores: 8")),
               Catch::Contains("cores of a machine cannot change during a run"));
    CHECK_THAT(errors_of(at_40s("datacenters.east.machines.nod.params.tcp_tw_reuse: 1")),
               Catch::Contains("no machine 'east.nod'; did you mean 'node'?"));
    CHECK_THAT(errors_of(at_40s("datacenters.east.machines.node.params.tcp_tw_reuse: 3")),
               Catch::Contains("tcp_tw_reuse"));
    // A process on the machine cannot change the machine's kernel for itself.
    const std::string e = errors_of(at_40s("datacenters.east.services.search.params.tcp_tw_reuse: 1"));
    CHECK_THAT(e, Catch::Contains("tcp_tw_reuse is the machine's: set it on machine 'node'"));
    CHECK_THAT(e, Catch::Contains("datacenters.east.machines.node.params.tcp_tw_reuse"));
  }
}

TEST_CASE("machines: sysctl -w net.ipv4.tcp_tw_reuse=1 (or a wider port range) mid-run ends the "
          "port exhaustion") {
  // search alone on `node`: 7 closes into TIME_WAIT per request at 10/s from +20 s, 60 s each,
  // fill the 1,000-port range toward `store` at ~+34 s, and every dial after fails. With
  // tcp_tw_reuse=1 from +40 s a connect() that finds no free port takes over a TIME_WAIT
  // tuple toward the same peer older than tcp_tw_reuse_delay (1 s): every one of them is.
  std::string alone = replace(kPorts, "CHECKOUT_PEER", "store");
  alone = replace(alone, "  checkouts: {from: east, target: checkout.get, rate: 5/s}\n", "");
  const char* errors = "client.dial_errors{client=store,host=east/search/0}";
  auto check = [&](const std::string& text, const std::string& set) {
    const std::string with_set = text + "timeline:\n  - at: +40s\n    set: {" + set + "}\n";
    Ran never = run_scenario_text(text);
    LoadOptions to_40s;
    to_40s.overrides = {{"duration", "40s"}};
    Ran before = run_scenario_text(with_set, to_40s);
    Ran after = run_scenario_text(with_set);
    REQUIRE(after.result.invariants_hold());
    INFO("dial errors: by +40 s " << before.value(errors) << ", by +60 s " << after.value(errors)
                                  << " (" << never.value(errors) << " without the change)");
    CHECK(before.value(errors) > 100);                       // exhausted before the change
    CHECK(after.value(errors) == before.value(errors));      // and not once after it
    CHECK(never.value(errors) > 1.3 * before.value(errors));  // without it, on failing
  };
  SECTION("on the machine") { check(alone, "datacenters.east.machines.node.params.tcp_tw_reuse: 1"); }
  SECTION("on a host of its own") {
    check(on_own_machines(alone), "datacenters.east.services.search.params.tcp_tw_reuse: 1");
  }
  // sysctl -w net.ipv4.ip_local_port_range="60000 65535" instead: 70 closes/s x 60 s = 4,200
  // TIME_WAIT tuples at the steady state (Little's law), under the 5,536 ports the range then
  // has, so the dials find free ports again.
  SECTION("or the port range widened, on the machine") {
    check(alone, "datacenters.east.machines.node.params.port_range_high: 65535");
  }
  SECTION("or the port range widened, on a host of its own") {
    check(on_own_machines(alone), "datacenters.east.services.search.params.port_range_high: 65535");
  }
  SECTION("a range emptied by one end is one error when it is applied") {
    std::string bad = alone + "timeline:\n  - at: +40s\n    set: "
                              "{datacenters.east.machines.node.params.port_range_low: 61000}\n";
    try {
      run_scenario_text(bad);
      FAIL("an empty port range ran");
    } catch (const std::exception& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("port_range_low 61000") &&
                                            Catch::Contains("set the other end first"));
    }
  }
}

TEST_CASE("machines: a machine with one process runs as a host of its own does") {
  // The machine adds nothing of its own: a search alone on a machine and alone on its host
  // dial, close and fail alike (the fingerprints differ only by the machine's actor id).
  std::string alone = replace(kPorts, "CHECKOUT_PEER", "store");
  alone = replace(alone, "  checkouts: {from: east, target: checkout.get, rate: 5/s}\n", "");
  Ran shared = run_scenario_text(alone);
  Ran own = run_scenario_text(on_own_machines(alone));
  for (const char* key : {"client.dial_errors{client=store,host=east/search/0}",
                          "client.dials{client=store,host=east/search/0}",
                          "handler.ok{handler=get,host=east/search/0}",
                          "net.time_wait{host=east/search/0}"}) {
    INFO(key);
    CHECK(shared.value(key) == own.value(key));
  }
}

namespace {

// `grower` on MACHINE holds 1 MiB a request for 2 s over a 100 MiB heap: 20/s from source
// `grow`, then 150/s from +20 s (kGrowFaster, the scenario's timeline).
std::string grower_on(const std::string& machine) {
  return "      grower:\n        kind: go-service\n        machine: " + machine + R"(
        params: {baseline_live_heap: 100MiB, restart_delay: 10m}
        program:
          handlers:
            get:
              - alloc: {bytes: 1MiB}
              - sleep: {time: {constant: 2s}}
)";
}
const std::string kGrowFaster = R"(timeline:
  - at: +20s
    set:
      sources.grow.rate: 150/s
invariants: [requests.accounted]
)";

// `grower` as above; `steady` holds a 600 MiB heap and never grows. The machine has 1 GiB.
const std::string kMemory = kHead + R"(        params: {cores: 4, memory: 1GiB}
    services:
)" + grower_on("node") + busy_on_node("steady", "baseline_live_heap: 600MiB, restart_delay: 10m", "100us") +
                            R"(sources:
  grow: {from: east, target: grower.get, rate: 20/s}
  ask: {from: east, target: steady.get, rate: 10/s}
)" + kGrowFaster;

// When `host` died, and the line it left; {-1, ""} if it never did.
std::pair<double, std::string> death_of(const Ran& r, const std::string& host) {
  for (const auto& [h, p] : r.run->phases()) {
    if (h == host && p.what.find("process died") != std::string::npos) {
      return {static_cast<double>(p.at) / 1e9, p.what};
    }
  }
  return {-1, ""};
}

}  // namespace

TEST_CASE("machines: past the machine's memory the kernel kills the process with the most") {
  SECTION("the neighbour that never grew dies, the one growing lives") {
    // Before +20 s: 100 + 40 MiB live in grower, its heap at most twice that (GOGC 100), and
    // steady's ~616 MiB: under 1 GiB. At 150/s grower holds 300 MiB more and crosses the line
    // within seconds; the OOM killer takes the largest, steady (~646 MiB RSS), not grower.
    Ran r = run_scenario_text(kMemory);
    REQUIRE(r.result.invariants_hold());
    const auto [at, line] = death_of(r, "east/steady/0");
    CHECK(at > 20.0);
    CHECK(at < 30.0);
    CHECK_THAT(line, Catch::Contains("Out of memory: Killed process"));
    CHECK(death_of(r, "east/grower/0").first < 0);
    CHECK(r.value("machine.oom_kills{machine=east/node/0}") == 1);
    CHECK(r.value("go.oom_kills{host=east/steady/0}") == 1);
    CHECK(r.value("handler.failed{handler=get,host=east/grower/0}") == 0);
  }
  SECTION("without the machine's memory nobody dies") {
    Ran r = run_scenario_text(replace(kMemory, "memory: 1GiB", "memory: 0"));
    REQUIRE(r.result.invariants_hold());
    CHECK(death_of(r, "east/steady/0").first < 0);
    CHECK(death_of(r, "east/grower/0").first < 0);
    CHECK(r.value("machine.rss_bytes{machine=east/node/0}") > 1024.0 * 1024 * 1024);
  }
  SECTION("a container's own limit comes first: its cgroup kills the one growing") {
    Ran r = run_scenario_text(replace(kMemory, "baseline_live_heap: 100MiB,",
                                      "baseline_live_heap: 100MiB, memory_limit: 350MiB,"));
    REQUIRE(r.result.invariants_hold());
    const auto [at, line] = death_of(r, "east/grower/0");
    CHECK(at > 20.0);
    CHECK_THAT(line, Catch::Contains("OOMKilled: container memory limit exceeded"));
    CHECK(death_of(r, "east/steady/0").first < 0);
    CHECK(r.value("machine.oom_kills{machine=east/node/0}") == 0);
  }
}

namespace {

// A memcached (one worker thread, 20 us a request) on a one-core machine with `hog`, a
// single-P Go process doing 2 ms of Go code a request at 250/s (its thread runnable half the
// time). `reader`, on a host of its own, gets a key through gomemcache 200 times a second.
const std::string kSidecar = kHead + R"(        params: {cores: 1, core_sharing: SHARING}
    services:
      cache:
        kind: memcached
        machine: node
        params: {service_time: 20us, worker_threads: 1}
)" + busy_on_node("hog", "restart_delay: 10m", "2ms") + R"(      reader:
        kind: go-service
        params: {cores: 4}
        program:
          clients:
            mc: {target: cache, driver: gomemcache, rtt: 100us, timeout: 1s}
          handlers:
            get:
              - cache_get:
                  client: mc
                  keys: 100
                  on_miss: [{cache_set: {client: mc, keys: 100}}]
sources:
  hogs: {from: east, target: hog.get, rate: 250/s}
  reads: {from: east, target: reader.get, rate: 200/s}
invariants: [requests.accounted]
)";

}  // namespace

TEST_CASE("machines: a memcached on a machine shares its cores with the other processes") {
  // Apart (no machine), each memcached request has its core: the reader's latency is its own
  // Go code, the round trip and 20 us. On the machine, what a 20 us request adds depends on
  // how the core is shared with hog's thread, runnable a fraction rho = 0.5 of the time.
  auto sidecar = [](const std::string& sharing) {
    return replace(kSidecar, "SHARING", sharing);
  };
  std::string apart = replace(sidecar("processor_sharing"), "        machine: node\n        params: {service_time",
                              "        params: {service_time");
  Ran a = run_scenario_text(apart);
  REQUIRE(a.result.invariants_hold());
  const double alone_us = mean_latency_ms(a, "east/reader/0") * 1000;
  INFO("apart: " << alone_us << " us");
  CHECK(a.value("handler.failed{handler=get,host=east/reader/0}") == 0);

  SECTION("processor sharing: a request runs at half speed while hog's thread runs") {
    // A request much shorter than hog's 2 ms finds hog's thread runnable with probability
    // rho and then shares the core: 20 us x (1 + rho) = 30 us, 10 us more than apart.
    Ran r = run_scenario_text(sidecar("processor_sharing"));
    REQUIRE(r.result.invariants_hold());
    CHECK(r.value("machine.processes{machine=east/node/0}") == 2);
    const double extra_us = mean_latency_ms(r, "east/reader/0") * 1000 - alone_us;
    INFO("extra: " << extra_us << " us");
    CHECK(extra_us == Approx(10).epsilon(0.15));
  }
  SECTION("run to completion: a request waits for hog's thread to leave the core") {
    // It finds hog's thread on the core with probability rho and waits at least the rest of
    // its 2 ms job, 1 ms on average: rho x 1 ms more than apart. At most it waits out hog's
    // busy period (the M goes straight on to the next queued goroutine), whose rest an arrival
    // sees as E[B^2] / 2E[B] = D / 2(1 - rho)^2 for an M/D/1: rho x 4 ms at rho 0.5. At
    // rho 0.05 the two bounds meet: 50 to 55 us.
    Ran r = run_scenario_text(sidecar("run_to_completion"));
    REQUIRE(r.result.invariants_hold());
    const double extra_us = mean_latency_ms(r, "east/reader/0") * 1000 - alone_us;
    INFO("extra at rho 0.5: " << extra_us << " us");
    CHECK(extra_us > 0.95 * 500);
    CHECK(extra_us < 2000);
    const std::string light = replace(sidecar("run_to_completion"), "rate: 250/s}", "rate: 25/s}");
    Ran l = run_scenario_text(light);
    REQUIRE(l.result.invariants_hold());
    const double light_us = mean_latency_ms(l, "east/reader/0") * 1000 - alone_us;
    INFO("extra at rho 0.05: " << light_us << " us");
    CHECK(light_us == Approx(52.5).epsilon(0.1));
  }
}

namespace {

// `cache`, a memcached on a 1 GiB machine beside `steady` (a 300 MiB Go heap that never grows),
// fills with 1 KiB items that `writer` (on a host of its own) sets at 10,000/s, each a new key
// (an idle pool of 64, so its connections are reused, not closed into TIME_WAIT). kCacheMemory
// has no kubelet eviction (the kernel's OOM killer alone); kCacheEviction the kubelet's default.
const std::string kCacheEviction = kHead + R"(        params: {cores: 4, memory: 1GiB}
    services:
      cache:
        kind: memcached
        machine: node
        params: {capacity_items: 10M, restart_delay: 10s}
)" + busy_on_node("steady", "baseline_live_heap: 300MiB, restart_delay: 10m", "100us") +
                                R"(      writer:
        kind: go-service
        params: {cores: 4}
        program:
          clients:
            mc: {target: cache, driver: gomemcache, rtt: 100us, timeout: 1s, max_idle: 64}
          handlers:
            put:
              - cache_set: {client: mc, keys: 1G, value_bytes: 1KiB, on_error: continue}
sources:
  puts: {from: east, target: writer.put, rate: 10k/s}
  asks: {from: east, target: steady.get, rate: 10/s}
invariants: [requests.accounted]
)";
const std::string kCacheMemory =
    replace(kCacheEviction, "memory: 1GiB}", "memory: 1GiB, eviction_memory_available: 0}");

std::vector<double> kills_of(const Ran& r, const std::string& host,
                             const std::string& line = "Out of memory: Killed process (memcached)") {
  std::vector<double> out;
  for (const auto& [h, p] : r.run->phases()) {
    if (h == host && p.what.find(line) != std::string::npos) {
      out.push_back(static_cast<double>(p.at) / 1e9);
    }
  }
  return out;
}

// The fill runs last 3 minutes. Each item is memcached's ITEM_ntotal: 56 bytes of header and
// CAS, a key ("k" and, for 90 % of them, 9 digits) with its NUL, the 1,024-byte value and its
// \r\n: ~1,093 bytes, 10.9 MB/s at 10,000 sets a second.
LoadOptions three_minutes() {
  LoadOptions o;
  o.overrides = {{"duration", "3m"}};
  return o;
}
// Past the second eviction of the kubelet's test (131 s) and its replacement (141 s).
LoadOptions past_second_eviction() {
  LoadOptions o;
  o.overrides = {{"duration", "145s"}};
  return o;
}
constexpr double kItemBytes = 56 + 11 + 1024 + 2;
constexpr double kGiB = 1024.0 * 1024 * 1024;

}  // namespace

TEST_CASE("machines: a memcached's items count in the machine's memory; the OOM killer takes it") {
  // The cache outgrows steady's ~310 MiB and is the largest when the two pass 1 GiB: killed
  // when its items reach 1 GiB - steady's RSS. Then it restarts empty after 10 s and fills
  // again: kills one fill plus 10 s apart.
  Ran r = run_scenario_text(kCacheMemory, three_minutes());
  REQUIRE(r.result.invariants_hold());
  const double steady_rss = r.value("go.rss_bytes{host=east/steady/0}");
  const double fill_s = (kGiB - steady_rss) / (10'000 * kItemBytes);
  const std::vector<double> kills = kills_of(r, "east/cache/0");
  INFO("steady " << steady_rss / 1048576 << " MiB, fill " << fill_s << " s, kills at "
                 << (kills.empty() ? -1 : kills[0]) << ", "
                 << (kills.size() > 1 ? kills[1] : -1));
  REQUIRE(kills.size() == 2);
  CHECK(kills[0] == Approx(fill_s).epsilon(0.03));
  CHECK(kills[1] - kills[0] == Approx(fill_s + 10).epsilon(0.03));
  CHECK(r.value("memcached.oom_kills{host=east/cache/0}") == 2);
  CHECK(r.value("machine.oom_kills{machine=east/node/0}") == 2);
  CHECK(r.value("go.oom_kills{host=east/steady/0}") == 0);  // the smaller one lives
  // While it was down (2 x 10 s) the writer's sets failed to dial: ~200,000 of them; since it
  // came back at kill + 10 s it has taken every set.
  CHECK(r.value("call.errors{client=mc,error=memcache_dial_error,host=east/writer/0}") ==
        Approx(2 * 10 * 10'000).epsilon(0.02));
  CHECK(r.value("memcached.items{host=east/cache/0}") ==
        Approx((180 - (kills[1] + 10)) * 10'000).epsilon(0.02));
  SECTION("without the machine's memory it keeps growing") {
    Ran free =
        run_scenario_text(replace(kCacheMemory, "memory: 1GiB", "memory: 0"), three_minutes());
    REQUIRE(free.result.invariants_hold());
    CHECK(kills_of(free, "east/cache/0").empty());
    CHECK(free.value("memcached.bytes{host=east/cache/0}") ==
          Approx(free.value("memcached.items{host=east/cache/0}") * kItemBytes).epsilon(0.01));
  }
}

TEST_CASE("machines: the kubelet evicts the largest pod at its first look under the threshold") {
  // The same fill with the kubelet's defaults: every 10 s it compares memory.available (1 GiB
  // minus steady's and the cache's RSS) with 100 MiB. The cache crosses that line 100 MiB /
  // 10.9 MB/s = 9.6 s before the OOM point, so the look at the next multiple of 10 s evicts it
  // (the largest) before the kernel must. Its replacement runs 10 s later, empty; the kubelet
  // looks again 1 s after an eviction (the pod cleaned up), then every 10 s from there.
  const double rate = 10'000 * kItemBytes;  // the fill, bytes/s (both sections)
  SECTION("the cache is evicted at the looks the arithmetic gives, before the OOM point") {
    Ran r = run_scenario_text(kCacheEviction, past_second_eviction());
    REQUIRE(r.result.invariants_hold());
    const double steady_rss = r.value("go.rss_bytes{host=east/steady/0}");
    const double cross_s = (kGiB - steady_rss - 100.0 * 1024 * 1024) / rate;
    const double oom_s = (kGiB - steady_rss) / rate;
    const double first = std::ceil(cross_s / 10) * 10;  // looks at 10, 20, ... s
    // After it: looks at first + 1 + 10 k; the replacement refills from first + 10.
    const double refill_cross = first + 10 + cross_s;
    const double second = first + 1 + std::ceil((refill_cross - first - 1) / 10) * 10;
    const std::vector<double> evicted =
        kills_of(r, "east/cache/0", "Evicted: The node was low on resource: memory (memcached)");
    INFO("cross " << cross_s << " s, OOM point " << oom_s << " s, evictions expected at " << first
                  << ", " << second << " s; at " << (evicted.empty() ? -1 : evicted[0]) << ", "
                  << (evicted.size() > 1 ? evicted[1] : -1));
    REQUIRE(first < oom_s);  // the look comes before the kernel would kill
    REQUIRE(evicted.size() == 2);
    CHECK(evicted[0] == Approx(first).margin(1e-6));
    CHECK(evicted[1] == Approx(second).margin(1e-6));
    CHECK(r.value("machine.evictions{machine=east/node/0}") == 2);
    CHECK(r.value("memcached.pod_evictions{host=east/cache/0}") == 2);
    CHECK(r.value("machine.oom_kills{machine=east/node/0}") == 0);
    CHECK(kills_of(r, "east/cache/0").empty());
    CHECK(r.value("go.evictions{host=east/steady/0}") == 0);  // the smaller pod stays
    // Down from each eviction to its replacement, 10 s: ~200,000 sets failed to dial.
    CHECK(r.value("call.errors{client=mc,error=memcache_dial_error,host=east/writer/0}") ==
          Approx(2 * 10 * 10'000).epsilon(0.02));
  }
  SECTION("fast growth outruns the kubelet: the OOM killer comes first") {
    // 150 MiB/s (kMemory's grower after +20 s) crosses the 100 MiB margin in 0.7 s, between
    // two looks: the kernel kills steady, and the kubelet never evicts.
    Ran fast = run_scenario_text(kMemory);
    REQUIRE(fast.result.invariants_hold());
    CHECK(fast.value("machine.oom_kills{machine=east/node/0}") == 1);
    CHECK(fast.value("machine.evictions{machine=east/node/0}") == 0);
  }
  SECTION("a Go pod evicted comes back as a new pod after eviction_replacement; the kernel and "
          "the kubelet take turns") {
    // steady's 900 MiB heap leaves memory.available under 100 MiB from the start: the look at
    // 10 s evicts it (the largest). Its replacement runs at 70 s (eviction_replacement 60 s; a
    // restart would have waited restart_delay, 10 min) beside a cache grown to ~730 MiB: past
    // 1 GiB at once, and the kernel kills the largest, the new steady. The cache alone then
    // crosses 1 GiB - 100 MiB at (924 MiB / 10.9 MB/s) and is evicted at the next look
    // (11 + 10 k s).
    const std::string big = replace(replace(kCacheEviction, "baseline_live_heap: 300MiB",
                                            "baseline_live_heap: 900MiB"),
                                    "memory: 1GiB}", "memory: 1GiB, eviction_replacement: 60s}");
    LoadOptions hundred_s;
    hundred_s.overrides = {{"duration", "100s"}};
    Ran g = run_scenario_text(big, hundred_s);
    REQUIRE(g.result.invariants_hold());
    const std::vector<double> steady_evicted =
        kills_of(g, "east/steady/0", "Evicted: The node was low on resource: memory");
    const std::vector<double> steady_oom = kills_of(g, "east/steady/0", "Out of memory");
    const std::vector<double> cache_evicted =
        kills_of(g, "east/cache/0", "Evicted: The node was low on resource: memory (memcached)");
    const double cache_cross = (1024.0 - 100) * 1024 * 1024 / rate;
    const double cache_look = 11 + std::ceil((cache_cross - 11) / 10) * 10;
    INFO("cache crosses at " << cache_cross << " s, expected evicted at " << cache_look << " s");
    REQUIRE(steady_evicted.size() == 1);
    CHECK(steady_evicted[0] == Approx(10).margin(1e-6));
    REQUIRE(steady_oom.size() == 1);
    CHECK(steady_oom[0] == Approx(70).margin(1e-6));
    REQUIRE(cache_evicted.size() == 1);
    CHECK(cache_evicted[0] == Approx(cache_look).margin(1e-6));
    CHECK(g.value("go.evictions{host=east/steady/0}") == 1);
    CHECK(g.value("go.oom_kills{host=east/steady/0}") == 1);
    CHECK(g.value("machine.evictions{machine=east/node/0}") == 2);
  }
}

namespace {

// A one-node Scylla (3 shards) on a 4-core machine `node`, declared above `api`, a go-service
// on the same machine whose `get` is 1 ms of Go code at 500/s.
const std::string kPinned = kHead + R"(        params: {cores: 4}
    services:
      db:
        kind: scylla
        machine: node
        params: {nodes: 1, shards_per_node: 3, replication_factor: 1, consistency: ONE,
                 partitions: 1k}
)" + busy_on_node("api", "restart_delay: 10m", "1ms") + R"(sources:
  gets: {from: east, target: api.get, rate: 500/s}
invariants: [requests.accounted]
)";

// Three Scylla nodes (1 shard, RF 3, QUORUM) on machines db/0..2 of 2 GiB, each holding
// node_memory 1.2 GiB; `grower` on db/0 (kMemory's: 1 MiB held 2 s a request, 20/s then 150/s
// from +20 s); `reader` on a host of its own reads the cluster at 100/s. EVICTION: the machines'
// eviction_memory_available.
std::string scylla_on_machines(const std::string& eviction) {
  return R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 1m
datacenters:
  east:
    machines:
      db:
        count: 3
        params: {cores: 4, memory: 2GiB, eviction_memory_available: )" + eviction + R"(}
    services:
      cluster:
        kind: scylla
        machine: db
        params: {nodes: 3, shards_per_node: 1, partitions: 10k, node_memory: 1.2GiB,
                 restart_delay: 10s}
)" + grower_on("db") + R"(      reader:
        kind: go-service
        program:
          clients:
            db: {target: cluster, driver: gocql, rtt: 0s, timeout: 5s}
          handlers:
            get:
              - call: {client: db, endpoint: read}
sources:
  grow: {from: east, target: grower.get, rate: 20/s}
  reads: {from: east, target: reader.get, rate: 100/s}
)" + kGrowFaster;
}


}  // namespace

TEST_CASE("machines: a Scylla node's shards take their cores out of the machine's shared pool") {
  // 4 cores, 3 pinned to the node's shards: the api's Go process sees 1 (GOMAXPROCS 1) and its
  // 1 ms requests at 500/s queue as an M/D/1 at load 0.5, 1 + 0.5 / (2 (1 - 0.5)) = 1.5 ms;
  // without the node on the machine, four cores leave them nearly unqueued (M/D/4 at 0.125).
  Ran pinned = run_scenario_text(kPinned);
  REQUIRE(pinned.result.invariants_hold());
  CHECK(mean_latency_ms(pinned, "east/api/0") == Approx(1.5).epsilon(0.07));
  Ran apart = run_scenario_text(replace(kPinned, "        machine: node\n        params: {nodes",
                                        "        params: {nodes"));
  REQUIRE(apart.result.invariants_hold());
  CHECK(mean_latency_ms(apart, "east/api/0") < 1.05);
  SECTION("pinning every core, a node's machine missing, or pinning after others is one error") {
    // The loader sees it (a located error, `skysim validate` too), before the machine would.
    CHECK_THAT(build_error(replace(kPinned, "shards_per_node: 3", "shards_per_node: 4")),
               Catch::Contains("shards_per_node: a node pins 4 shards on machine 'node' of 4 "
                               "cores (expected shards_per_node below the machine's cores: at "
                               "least one stays shared)"));
    CHECK_THAT(build_error(replace(kPinned, "nodes: 1,", "nodes: 2,")),
               Catch::Contains("node 1 has no machine east/node/1"));
    // Declared below the api: the api's Go process was placed (and took its GOMAXPROCS) first.
    const auto db = kPinned.find("      db:\n"), api = kPinned.find("      api:\n");
    std::string below = kPinned;
    below.erase(db, api - db);
    below.insert(below.find("sources:"), kPinned.substr(db, api - db));
    REQUIRE(below.find("      api:\n") < below.find("      db:\n"));
    CHECK_THAT(build_error(below), Catch::Contains("declare it above the services that share"));
  }
}

TEST_CASE("machines: a Scylla node's memory counts in its machine's; the OOM killer or the "
          "kubelet may take the node") {
  SECTION("the OOM killer takes the node (the most memory), not the process growing") {
    // From +20 s the grower holds ~300 MiB more and db/0 passes 2 GiB; the node's 1.2 GiB is the
    // most, so node 0 dies. RF 3 at QUORUM: the reads go on with two replicas (degraded), none
    // fails. It serves again after restart_delay, its memory allocated again.
    Ran r = run_scenario_text(scylla_on_machines("0"));
    REQUIRE(r.result.invariants_hold());
    const std::vector<double> killed =
        kills_of(r, "east/cluster/0", "Out of memory: Killed process (scylla node 0)");
    REQUIRE_FALSE(killed.empty());
    INFO("node 0 first killed at " << killed[0] << " s");
    CHECK(killed[0] > 20.0);
    CHECK(killed[0] < 30.0);
    CHECK(r.value("scylla.node_oom_kills{host=east/cluster/0}") >= 1);
    CHECK(r.value("machine.oom_kills{machine=east/db/0}") ==
          r.value("scylla.node_oom_kills{host=east/cluster/0}"));
    CHECK(r.value("go.oom_kills{host=east/grower/0}") == 0);
    CHECK(r.value("scylla.degraded{host=east/cluster/0}") > 0);
    CHECK(r.value("requests.ok{client=reads,endpoint=get}") > 5'000);
    CHECK(r.value("requests.failed{client=reads,endpoint=get}") == 0);
    CHECK(r.value("machine.oom_kills{machine=east/db/1}") == 0);
  }
  SECTION("under a higher eviction threshold the kubelet evicts the node at its first look") {
    // memory.available < 600 MiB: 2 GiB - 1.2 GiB - the grower's ~300 MiB is under it from the
    // start, so the look at 10 s evicts node 0 (the largest pod); its replacement runs 10 s
    // later and is evicted again at a later look.
    Ran r = run_scenario_text(scylla_on_machines("600MiB"));
    REQUIRE(r.result.invariants_hold());
    const std::vector<double> evicted = kills_of(
        r, "east/cluster/0", "Evicted: The node was low on resource: memory (scylla node 0)");
    REQUIRE_FALSE(evicted.empty());
    CHECK(evicted[0] == Approx(10).margin(1e-6));
    CHECK(r.value("scylla.node_evictions{host=east/cluster/0}") >= 1);
    CHECK(r.value("machine.evictions{machine=east/db/0}") ==
          r.value("scylla.node_evictions{host=east/cluster/0}"));
    CHECK(r.value("go.evictions{host=east/grower/0}") == 0);
  }
}

TEST_CASE("machines: the same seed gives the same run, another seed another") {
  // The OOM killer's choice and the shared cores' order are the kernel's, not the heap's.
  auto run = [](const std::string& text) {
    Ran r = run_scenario_text(text);
    return std::pair{r.result.fingerprint, r.result.unseed};
  };
  const auto a = run(kMemory), b = run(kMemory);
  CHECK(a == b);
  CHECK(run(replace(kMemory, "epoch:", "seed: 2\nepoch:")).first != a.first);
}
