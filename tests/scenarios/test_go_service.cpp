// The go-service kind (scenarios/kind_go_service.cpp): a Go service written as a YAML program.
// Its wiring errors, its steps against what Go's code would do, and its TCP behaviour against
// the arithmetic of the ephemeral port range.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "scenario_fixtures.hpp"

using namespace skysim::scenarios;
using skysim::scenarios::testing::errors_of;
using Ran = skysim::scenarios::testing::TextRun;
using skysim::scenarios::testing::run_scenario_text;

namespace {

// One go-service `api` in front of a queue-server `store`; PROGRAM replaces the program's
// handlers, STORE the store's service time.
std::string two_tier(const std::string& handlers, const std::string& store_time = "{constant: 10ms}",
                     const std::string& client = "{target: store, max_idle: 16}",
                     const std::string& rate = "1/s", const std::string& extra = "") {
  return R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 1m
datacenters:
  east:
    services:
      store:
        kind: queue-server
        params:
          workers: 64
          service_time: )" + store_time + R"(
      api:
        kind: go-service
        program:
          clients:
            store: )" + client + R"(
          handlers:
)" + handlers + R"(
sources:
  users:
    from: east
    target: api.get
    rate: )" + rate + "\n" + extra;
}

const char* kFanOut12 = R"(            get:
              - errgroup:
                  tasks: 12
                  limit: LIMIT
                  do:
                    - call: {client: store, endpoint: serve}
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

std::string source_file(const std::string& rel) {
  std::ifstream f(std::string(SKYSIM_SOURCE_DIR) + "/" + rel);
  REQUIRE(f);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("go-service: wiring errors name the file:line and what exists") {
  const std::string ok = two_tier("            get:\n              - call: {client: store, endpoint: serve}");
  CHECK(errors_of(ok) == "OK");

  SECTION("an unknown step, with the nearest name") {
    auto e = errors_of(replace(ok, "- call:", "- cal:"));
    CHECK_THAT(e, Catch::Contains("t.yaml:19:17") && Catch::Contains("unknown step 'cal'") &&
                      Catch::Contains("did you mean 'call'"));
  }
  SECTION("a call through a client the program does not have") {
    auto e = errors_of(replace(ok, "{client: store, endpoint", "{client: stor, endpoint"));
    CHECK_THAT(e, Catch::Contains("t.yaml:19:32") && Catch::Contains("no client 'stor' in this program"));
  }
  SECTION("a client aimed at a service that does not exist") {
    auto e = errors_of(replace(ok, "{target: store,", "{target: cache,"));
    CHECK_THAT(e, Catch::Contains("t.yaml:16:29") && Catch::Contains("no service 'cache'"));
    auto near = errors_of(replace(ok, "{target: store,", "{target: stor,"));
    CHECK_THAT(near, Catch::Contains("no service 'stor'; did you mean 'store'?"));
  }
  SECTION("an endpoint the target does not serve") {
    auto e = errors_of(replace(ok, "endpoint: serve", "endpoint: get"));
    CHECK_THAT(e, Catch::Contains("service 'store' (queue-server) has no endpoint 'get'") &&
                      Catch::Contains("one of: serve"));
  }
  SECTION("a source aimed at a handler the program does not have") {
    auto e = errors_of(replace(ok, "target: api.get", "target: api.gte"));
    CHECK_THAT(e, Catch::Contains("has no endpoint 'gte'") && Catch::Contains("did you mean 'get'"));
  }
  SECTION("a step parameter out of range, at its line") {
    auto e = errors_of(replace(ok, "              - call:", "              - errgroup: {tasks: 0, do: [{sleep: {}}]}\n              - call:"));
    CHECK_THAT(e, Catch::Contains("t.yaml:19:35") && Catch::Contains("tasks") &&
                      Catch::Contains("below the minimum"));
  }
  SECTION("an errgroup without its body") {
    auto e = errors_of(replace(ok, "              - call:", "              - errgroup: {tasks: 2}\n              - call:"));
    CHECK_THAT(e, Catch::Contains("missing required key 'do'"));
  }
  SECTION("a program on a kind that runs none, and a go-service without one") {
    auto e = errors_of(replace(ok, "        kind: queue-server\n",
                               "        kind: queue-server\n        program: {handlers: {x: [{sleep: {}}]}}\n"));
    CHECK_THAT(e, Catch::Contains("a queue-server service takes no program"));
    auto f = errors_of(R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 1m
datacenters:
  east:
    services:
      api: {kind: go-service}
)");
    CHECK_THAT(f, Catch::Contains("missing required key 'program'"));
  }
  SECTION("a chain of calls that comes back to where it started") {
    const std::string cycle = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 1m
datacenters:
  east:
    services:
      a:
        kind: go-service
        program:
          clients: {b: {target: b}}
          handlers:
            h: [{call: {client: b, endpoint: g}}]
      b:
        kind: go-service
        program:
          clients: {a: {target: a}}
          handlers:
            g: [{sleep: {}}, {call: {client: a, endpoint: h}}]
)";
    auto e = errors_of(cycle);
    CHECK_THAT(e, Catch::Contains("call cycle: east.a.h -> east.b.g -> east.a.h") &&
                      Catch::Contains("t.yaml:18:"));
  }
}

TEST_CASE("go-service: an errgroup limit runs its calls in waves, as SetLimit does") {
  // 12 calls of 10 ms + one 100 us round trip each, one request at a time (1/s): with no limit
  // they run at once (10.1 ms); with SetLimit(3) in four waves (40.4 ms). The connections stay
  // idle between requests (max_idle 16), so only the first request pays handshakes.
  auto p50_ms = [](const std::string& limit) {
    Ran r = run_scenario_text(two_tier(replace(kFanOut12, "LIMIT", limit)));
    REQUIRE(r.result.invariants_hold());
    return static_cast<double>(r.run->metrics()
                                   .histogram("handler.latency_ns", {{"handler", "get"}, {"host", "east/api/0"}})
                                   .quantile(0.5)) / 1e6;
  };
  const double unlimited = p50_ms("-1");
  const double three = p50_ms("3");
  INFO("no limit " << unlimited << " ms, limit 3 " << three << " ms");
  CHECK(unlimited == Approx(10.1).epsilon(0.02));
  CHECK(three == Approx(40.4).epsilon(0.02));
}

TEST_CASE("go-service: a call past its timeout fails and leaves its connection in TIME_WAIT") {
  // Every call takes 50 ms at the store; the client gives up at 20 ms and closes the connection
  // first (net/http cancels a request by closing it): one TIME_WAIT socket per call, none
  // reused, none expired within the minute (TIME_WAIT lasts 60 s).
  Ran r = run_scenario_text(two_tier("            get:\n              - call: {client: store, endpoint: serve}",
                            "{constant: 50ms}", "{target: store, max_idle: 16, timeout: 20ms}",
                            "20/s"));
  REQUIRE(r.result.invariants_hold());
  const double requests = r.value("requests.issued{client=users,endpoint=get}");
  REQUIRE(requests > 900);
  CHECK(r.value("requests.ok{client=users,endpoint=get}") == 0);
  CHECK(r.value("client.timeouts{client=store,host=east/api/0}") == requests);
  CHECK(r.value("client.dials{client=store,host=east/api/0}") == requests);
  CHECK(r.value("net.time_wait{host=east/api/0}") == requests);
  // The store still served each request (it did not know the caller left).
  CHECK(r.value("queue.served{host=east/store/0}") >= requests - 2);
}

TEST_CASE("go-service: services in a chain add their hops") {
  // api (200 us CPU) -> mid (300 us CPU) -> store (10 ms): each hop is one 100 us round trip.
  const std::string text = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 1m
datacenters:
  east:
    services:
      store:
        kind: queue-server
        params: {workers: 8, service_time: {constant: 10ms}}
      mid:
        kind: go-service
        program:
          clients: {store: {target: store}}
          handlers:
            get: [{cpu: {time: {constant: 300us}}}, {call: {client: store, endpoint: serve}}]
      api:
        kind: go-service
        program:
          clients: {mid: {target: mid}}
          handlers:
            get: [{cpu: {time: {constant: 200us}}}, {call: {client: mid, endpoint: get}}]
sources:
  users: {from: east, target: api.get, rate: 2/s}
)";
  Ran r = run_scenario_text(text);
  REQUIRE(r.result.invariants_hold());
  const double p50 = static_cast<double>(r.run->metrics()
                                             .histogram("handler.latency_ns", {{"handler", "get"}, {"host", "east/api/0"}})
                                             .quantile(0.5)) / 1e6;
  CHECK(p50 == Approx(0.2 + 0.1 + 0.3 + 0.1 + 10.0).epsilon(0.02));
}

// [whole-scenario]: runs a shipped scenario file for minutes of simulated time; unsanitised
// only unless SKYSIM_ASAN_FULL=1 (~150 s under ASan). The mechanism it rests on is checked
// under ASan by "a port range of ten ports" below.
TEST_CASE("go-service: TIME_WAIT follows Little's law and the port range fills when predicted",
          "[whole-scenario]") {
  // scenarios/search-fanout-ports.yaml: before 00:05 the sockets in TIME_WAIT are the close
  // rate times 60 s (Little's law; closes = dials in steady state); after the rate doubles the
  // count grows by the dial rate minus the expiries and stops at 4 x 28,232 (each index host's
  // own range under connect(2)'s 4-tuple rule), and dials fail.
  const std::string text = source_file("scenarios/search-fanout-ports.yaml");
  // Its first 5.5 minutes: the range fills within 30 s of the rise.
  LoadOptions six;
  six.overrides.push_back(parse_override("duration=330s"));
  Scenario s = load_scenario_text(text, "search-fanout-ports.yaml", builtin_registry(), six);
  ScenarioRun run(s, builtin_registry());
  const sim::Time t0 = 0;  // simulated time counts from the epoch
  auto& m = run.metrics();
  run.advance_to(t0 + 235 * sim::kSecond);
  const double dials_235 = m.value("client.dials{client=index,host=east/search/0}");
  run.advance_to(t0 + 295 * sim::kSecond);
  const double dials_295 = m.value("client.dials{client=index,host=east/search/0}");
  const double rate = (dials_295 - dials_235) / 60.0;
  const double tw = m.value("net.time_wait{host=east/search/0}");
  INFO("dials " << rate << "/s, TIME_WAIT " << tw << ", Little's law " << rate * 60);
  CHECK(tw == Approx(rate * 60).epsilon(0.03));
  CHECK(tw < 4 * 28232);
  CHECK(m.value("client.dial_errors{client=index,host=east/search/0}") == 0);
  // Fill time after the rise: the margin left over the net growth (double the dials, the same
  // expiries as before, for 60 s).
  const double predicted_s = (4 * 28232 - tw) / rate;
  RunResult res = run.run();
  REQUIRE(res.invariants_hold());
  sim::Time first_error = 0;
  for (const auto& [host, p] : run.phases()) {
    if (p.what.find("first dial error") != std::string::npos) first_error = p.at;
  }
  REQUIRE(first_error > 0);
  const double after_s = sim::to_seconds(first_error - (t0 + 300 * sim::kSecond));
  INFO("first dial error " << after_s << " s after the rise, predicted " << predicted_s << " s");
  CHECK(after_s > 0);
  CHECK(after_s == Approx(predicted_s).epsilon(0.25));
  CHECK(m.value("net.time_wait{host=east/search/0}") <= 4 * 28232);
  CHECK(m.value("requests.failed{client=users,endpoint=query}") > 1000);  // ~10 s of them

  // The fix: 16 idle connections per host, the same traffic, no dial error.
  LoadOptions o = six;
  o.overrides.push_back(parse_override("variant=pooled"));
  Ran fixed = run_scenario_text(text, o);
  REQUIRE(fixed.result.invariants_hold());
  CHECK(fixed.value("client.dial_errors{client=index,host=east/search/0}") == 0);
  CHECK(fixed.value("requests.failed{client=users,endpoint=query}") == 0);
}

TEST_CASE("go-service: a crash fails the requests in flight and closes the process's sockets") {
  const std::string text =
      two_tier("            get:\n              - call: {client: store, endpoint: serve}",
               "{constant: 100ms}", "{target: store, max_idle: 4}", "50/s",
               "faults:\n  - {type: crash, at: +20s, target: east/api/0, duration: 1s}\n");
  Ran r = run_scenario_text(replace(text, "        kind: go-service\n", "        kind: go-service\n        params: {restart_delay: 5s}\n"));
  REQUIRE(r.result.invariants_hold());
  bool died = false, restarted = false;
  for (const auto& [host, p] : r.run->phases()) {
    died = died || (p.what.find("process died") != std::string::npos && p.at == 20 * sim::kSecond);
    restarted = restarted || (p.what.find("process restarted") != std::string::npos &&
                              p.at == 25 * sim::kSecond);
  }
  CHECK(died);
  CHECK(restarted);
  // ~5 requests in flight at the crash (50/s x 100 ms) and ~250 during the 5 s down.
  const double failed = r.value("requests.failed{client=users,endpoint=get}");
  CHECK(failed > 150);
  CHECK(failed < 400);
  CHECK(r.value("requests.ok{client=users,endpoint=get}") > 2000);
}

TEST_CASE("go-service: the same seed gives the same run, another seed another") {
  const std::string text = two_tier(replace(kFanOut12, "LIMIT", "4"), "{exponential: {mean: 5ms}}",
                                    "{target: store, max_idle: 2, timeout: 30ms}", "40/s");
  auto fp = [&](std::uint64_t seed) {
    LoadOptions o;
    o.seed = seed;
    return run_scenario_text(text, o).result.fingerprint;
  };
  CHECK(fp(3) == fp(3));
  CHECK(fp(3) != fp(4));
}

TEST_CASE("go-service: a stalled log pipe parks writers on Go's fd lock, or strands threads without it") {
  // Every request logs one 330-B line; the collector stops reading for 10 s at 00:00:10. With
  // Go's write lock one goroutine is in write(2) and the rest park on the lock (no M each);
  // without it each blocked write keeps its own thread, so threads grow by about the requests
  // that arrive during the stall (200/s x 10 s) once the 64-KiB pipe is full.
  auto run_with = [](bool lock) {
    const std::string text = std::string(R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 30s
datacenters:
  east:
    services:
      api:
        kind: go-service
        params: {log_write_lock: )") + (lock ? "true" : "false") + R"(}
        program:
          handlers:
            get: [{cpu: {time: {constant: 50us}}}, {log: {}}]
sources:
  users: {from: east, target: api.get, rate: 200/s}
faults:
  - {type: log-stall, at: +10s, target: east/api/0, duration: 10s}
)";
    Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
    ScenarioRun run(s, builtin_registry());
    run.advance_to(19 * sim::kSecond);
    auto& m = run.metrics();
    struct Seen {
      double threads, goroutines, blocked;
    } seen{m.value("go.threads{host=east/api/0}"), m.value("go.goroutines{host=east/api/0}"),
           m.value("log.blocked_writes{host=east/api/0}")};
    RunResult r = run.run();
    REQUIRE(r.invariants_hold());
    CHECK(m.value("go.goroutines{host=east/api/0}") == 0);  // all drained after the stall
    return seen;
  };
  const auto locked = run_with(true);
  const auto unlocked = run_with(false);
  INFO("locked: threads " << locked.threads << " goroutines " << locked.goroutines
                          << "; unlocked: threads " << unlocked.threads << " goroutines "
                          << unlocked.goroutines);
  // ~1,800 requests wait to log after 9 s of the stall (the pipe held ~200 lines).
  CHECK(locked.goroutines > 1500);
  CHECK(locked.threads < 12);
  CHECK(unlocked.goroutines > 1500);
  CHECK(unlocked.threads > 1500);
}

namespace {

std::string api_over_scylla(const std::string& scylla_params,
                            const std::string& db_timeout = "1s") {
  return R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 1m
datacenters:
  east:
    services:
      timeline:
        kind: scylla
        params: {nodes: 6, shards_per_node: 8, partitions: 10k)" + scylla_params + R"(}
      api:
        kind: go-service
        program:
          clients:
            db: {target: timeline, driver: gocql, rtt: 0s, timeout: )" + db_timeout + R"(}
          handlers:
            get: [{cpu: {time: {constant: 50us}}}, {call: {client: db, endpoint: read}}]
            post: [{call: {client: db, endpoint: write}}]
sources:
  readers: {from: east, target: api.get, rate: 500/s}
  writers: {from: east, target: api.post, rate: 100/s}
)";
}

double ms(const sim::Histogram& h, double q) { return static_cast<double>(h.quantile(q)) / 1e6; }

}  // namespace

TEST_CASE("go-service over the scylla kind: gocql keeps its connections, the cluster sets the time") {
  Ran r = run_scenario_text(api_over_scylla(""));
  REQUIRE(r.result.invariants_hold());
  auto& m = r.run->metrics();
  // gocql's pool: NumConns = 2 connections dialed once, every call a stream on them.
  CHECK(r.value("client.dials{client=db,host=east/api/0}") == 2);
  CHECK(r.value("net.time_wait{host=east/api/0}") == 0);
  // The handler is the cluster's read plus its own 50 us of CPU: nothing else in between.
  const auto& handler = m.histogram("handler.latency_ns", {{"handler", "get"}, {"host", "east/api/0"}});
  const auto& read = m.histogram("scylla.read_latency_ns", {{"host", "east/timeline/0"}});
  CHECK(handler.count() == read.count());
  CHECK(handler.mean() / 1e6 == Approx(read.mean() / 1e6 + 0.05).epsilon(0.01));
  // Unloaded, a write is the model's latency composition (client_rtt 300 + coordinator 20 +
  // replica_rtt 200 + the write, ~550 us in all; docs/models/scylla.md).
  const auto& write = m.histogram("scylla.write_latency_ns", {{"host", "east/timeline/0"}});
  CHECK(write.mean() / 1e6 == Approx(0.55).epsilon(0.05));
}

TEST_CASE("go-service over the scylla kind: a gocql call past its timeout abandons its stream") {
  // 200 us is less than any answer of the unloaded cluster (~550 us a write): every call times
  // out, each its own error at its deadline, and the two connections stay (gocql abandons the
  // stream, not the connection: nothing re-dialed, nothing in TIME_WAIT).
  Ran r = run_scenario_text(api_over_scylla("", "200us"));
  const double get_failed = r.value("handler.failed{handler=get,host=east/api/0}");
  const double post_failed = r.value("handler.failed{handler=post,host=east/api/0}");
  CHECK(get_failed == Approx(500 * 60).epsilon(0.05));
  CHECK(post_failed == Approx(100 * 60).epsilon(0.05));
  CHECK(r.value("handler.ok{handler=get,host=east/api/0}") == 0);
  CHECK(r.value("client.timeouts{client=db,host=east/api/0}") == get_failed + post_failed);
  CHECK(r.value("call.errors{client=db,error=timeout,host=east/api/0}") ==
        get_failed + post_failed);
  CHECK(r.value("client.dials{client=db,host=east/api/0}") == 2);
  CHECK(r.value("net.time_wait{host=east/api/0}") == 0);
  // The cluster still did every request it was handed (the late replies land on nobody).
  const auto& read = r.run->metrics().histogram("scylla.read_latency_ns", {{"host", "east/timeline/0"}});
  CHECK(static_cast<double>(read.count()) == Approx(get_failed).epsilon(0.001));
}

TEST_CASE("go-service over the scylla kind: hot partitions' shards slow the reads that land there") {
  // 8 partitions the fleet writes at 1k/s each: their replicas' shards are busy, so a random
  // read that lands on one waits. The median read does not (most shards are cold).
  Ran calm = run_scenario_text(api_over_scylla(""));
  Ran hot = run_scenario_text(api_over_scylla(", hot_partitions: 8, hot_partition_writes: 1k/s"));
  REQUIRE(calm.result.invariants_hold());
  REQUIRE(hot.result.invariants_hold());
  const sim::Labels host = {{"host", "east/timeline/0"}};
  const auto& c = calm.run->metrics().histogram("scylla.read_latency_ns", host);
  const auto& h = hot.run->metrics().histogram("scylla.read_latency_ns", host);
  INFO("calm p50 " << ms(c, 0.5) << " p99 " << ms(c, 0.99) << "; hot p50 " << ms(h, 0.5)
                   << " p99 " << ms(h, 0.99));
  CHECK(ms(h, 0.5) == Approx(ms(c, 0.5)).epsilon(0.1));
  CHECK(ms(h, 0.99) > 10 * ms(c, 0.99));
}

namespace {

// api -> memcached (read-through) -> scylla on a miss.
// A go-service `api` reading through a memcached `cache` (CACHE_PARAMS) to a scylla
// `timeline` on a miss; STEPS replaces its `get` handler's steps.
const char* kReadThroughSteps = R"(              - cache_get:
                  client: mc
                  keys: 10k
                  on_miss:
                    - call: {client: db, endpoint: read}
)";
std::string read_through_with(const std::string& cache_params, const std::string& steps,
                              const std::string& extra, const std::string& duration,
                              const std::string& rate = "500/s") {
  return R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: )" +
         duration + R"(
datacenters:
  east:
    services:
      cache:
        kind: memcached
        params: {)" +
         cache_params + R"(}
      timeline:
        kind: scylla
        params: {nodes: 6, shards_per_node: 8, partitions: 10k}
      api:
        kind: go-service
        program:
          clients:
            mc: {target: cache, driver: gomemcache, max_idle: 100, rtt: 50us}
            db: {target: timeline, driver: gocql, rtt: 0s, timeout: 1s}
          handlers:
            get:
)" + steps +
         R"(sources:
  readers: {from: east, target: api.get, rate: )" +
         rate + R"(}
)" + extra;
}
std::string read_through(const std::string& cache_params, const std::string& extra = "",
                         const std::string& duration = "1m") {
  return read_through_with(cache_params, kReadThroughSteps, extra, duration);
}

}  // namespace

TEST_CASE("go-service read-through cache: misses are the distinct keys drawn (coupon collector)") {
  // n uniform draws over K keys with a cache that holds them all: the misses are the distinct
  // keys seen, E = K (1 - (1 - 1/K)^n).
  Ran r = run_scenario_text(read_through("capacity_items: 1M"));
  REQUIRE(r.result.invariants_hold());
  const double n = r.value("requests.issued{client=readers,endpoint=get}");
  const double k = 10000;
  const double expected = k * (1 - std::pow(1 - 1 / k, n));
  const double misses = r.value("cache.misses{client=mc,host=east/api/0}");
  INFO("n " << n << " misses " << misses << " expected " << expected);
  CHECK(misses == Approx(expected).epsilon(0.02));
  // Every miss read Scylla once, then filled the cache.
  CHECK(r.run->metrics().histogram("scylla.read_latency_ns", {{"host", "east/timeline/0"}}).count() ==
        misses);
  CHECK(r.value("memcached.sets{host=east/cache/0}") == misses);
  CHECK(r.value("client.dials{client=mc,host=east/api/0}") < 10);  // the idle pool holds them
}

TEST_CASE("go-service read-through cache: an LRU of C items over K uniform keys hits C/K") {
  // Independent uniform references: the LRU holds C of the K keys at any time, each equally
  // likely, so a reference hits with probability C/K (King 1971; Fagin's working-set result).
  const std::string text = read_through("capacity_items: 2k", "", "3m");
  Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
  ScenarioRun run(s, builtin_registry());
  auto& m = run.metrics();
  run.advance_to(60 * sim::kSecond);  // warm: the LRU has been full for ~55 s
  const double h0 = m.value("cache.hits{client=mc,host=east/api/0}");
  const double m0 = m.value("cache.misses{client=mc,host=east/api/0}");
  RunResult res = run.run();
  REQUIRE(res.invariants_hold());
  const double hits = m.value("cache.hits{client=mc,host=east/api/0}") - h0;
  const double misses = m.value("cache.misses{client=mc,host=east/api/0}") - m0;
  INFO("hit ratio " << hits / (hits + misses));
  CHECK(hits / (hits + misses) == Approx(0.2).margin(0.01));
}

TEST_CASE("go-service read-through cache: Pareto popularity and a cold client's own key space") {
  // A cache that holds every key: the misses are the distinct keys drawn. The readers draw
  // rank = Pareto(1, 1.2) - 1 modulo K, so key j has p_j = sum over m = j (mod K) of
  // (1 + m)^-1.2 - (2 + m)^-1.2, and n draws see E = sum_j 1 - (1 - p_j)^n distinct keys (the
  // tail past m = 10^7 holds 4e-9 of the mass). The backfill client's requests name the cold
  // space of 50M keys: nearly every one of them is a miss of its own.
  std::string text = read_through("capacity_items: 1M",
                                  "  backfill: {client: batch, from: east, target: api.get, "
                                  "rate: 100/s}\n");
  text = replace(text, "                  keys: 10k\n",
                 "                  keys: 10k\n                  popularity: pareto\n"
                 "                  cold_clients: batch\n");
  Ran r = run_scenario_text(text);
  REQUIRE(r.result.invariants_hold());
  const double n = r.value("requests.issued{client=readers,endpoint=get}");
  const double cold = r.value("requests.issued{client=batch,endpoint=get}");
  const int k = 10000;
  std::vector<double> p(k, 0.0);
  for (int m = 0; m < 10'000'000; ++m) {
    p[m % k] += std::pow(1.0 + m, -1.2) - std::pow(2.0 + m, -1.2);
  }
  double distinct = 0;
  for (double pj : p) distinct += 1 - std::pow(1 - pj, n);
  const double misses = r.value("cache.misses{client=mc,host=east/api/0}");
  INFO("readers " << n << " backfill " << cold << " misses " << misses << ", expected " << distinct
                  << " + " << cold);
  CHECK(distinct < 0.5 * k);  // far fewer than uniform draws would see (~10k)
  CHECK(misses == Approx(distinct + cold).epsilon(0.03));
  // The readers' own share (the cold draws repeat a key with probability ~1e-4 each).
  CHECK(misses - cold == Approx(distinct).epsilon(0.1));

  // A client the scenario has no source for is a wiring error, with the line.
  std::string typo = replace(text, "cold_clients: batch", "cold_clients: bacth");
  CHECK_THAT(errors_of(typo), Catch::Contains("no source has client 'bacth'"));
}

TEST_CASE("go-service read-through cache: a memcached outage sends every read to Scylla") {
  // memcached-restart from 00:00:20 to 00:00:30: gets fail (EOF, refused), on_error: miss
  // falls back to Scylla for all of them; the server comes back empty, so the misses refill.
  Ran r = run_scenario_text(read_through("capacity_items: 1M",
                                "faults:\n  - {type: memcached-restart, at: +20s, target: "
                                "east/cache/0, duration: 10s}\n"));
  REQUIRE(r.result.invariants_hold());
  const double requests = r.value("requests.issued{client=readers,endpoint=get}");
  const double reads =
      static_cast<double>(r.run->metrics().histogram("scylla.read_latency_ns", {{"host", "east/timeline/0"}}).count());
  const double misses = r.value("cache.misses{client=mc,host=east/api/0}");
  CHECK(r.value("requests.failed{client=readers,endpoint=get}") == 0);
  CHECK(reads == misses);
  // ~5,000 requests fell in the window (500/s x 10 s), all read from Scylla; before and after
  // only the misses did: more reads than the no-outage run's ~9,500 distinct keys by ~5,000
  // plus the refill of what the restart emptied.
  Ran calm = run_scenario_text(read_through("capacity_items: 1M"));
  const double calm_reads = calm.value("cache.misses{client=mc,host=east/api/0}");
  INFO("reads " << reads << " without the outage " << calm_reads << " of " << requests);
  CHECK(reads > calm_reads + 4500);
  CHECK(r.value("memcached.gets{host=east/cache/0}") < requests - 4500);
}

TEST_CASE("go-service: a gomemcache client is checked against its target and its steps") {
  const std::string ok = read_through("capacity_items: 1M");
  CHECK(errors_of(ok) == "OK");
  auto e = errors_of(replace(ok, "{target: cache, driver: gomemcache", "{target: timeline, driver: gomemcache"));
  CHECK_THAT(e, Catch::Contains("a gomemcache client needs a memcached service, not 'timeline' (scylla)"));
  auto f = errors_of(replace(ok, "- call: {client: db, endpoint: read}", "- call: {client: mc, endpoint: get}"));
  CHECK_THAT(f, Catch::Contains("client 'mc' is a gomemcache client: use cache_get or cache_set"));
  auto g = errors_of(replace(ok, "{target: cache, driver: gomemcache", "{target: cache, driver: net_http"));
  CHECK_THAT(g, Catch::Contains("'cache' is a memcached service: its client needs driver: gomemcache"));
}

// [whole-scenario]: ~80 s under ASan, see above.
TEST_CASE("go-service: the April chain in YAML gives the post-mortem's error and its fix",
          "[whole-scenario]") {
  // scenarios/april-2026-outage.yaml's `monday` window (the full host) for 40 s, three batches
  // on seed 1: a batch of 15-20k URIs without SetLimit dials past the idle pool of 1,000 from
  // the one source 127.32.0.1, and the surplus closes fill that address's 28,232 ports with
  // TIME_WAIT.
  const std::string text = source_file("scenarios/april-2026-outage.yaml");
  LoadOptions o;
  o.overrides.push_back(parse_override("variant=monday"));
  o.overrides.push_back(parse_override("duration=40s"));
  Ran storm = run_scenario_text(text, o);
  REQUIRE(storm.result.invariants_hold());
  std::string first;
  for (const auto& [host, p] : storm.run->phases()) {
    if (p.what.find("first memcache error") != std::string::npos) first = p.what;
  }
  CHECK_THAT(first, Catch::Contains(
                        "dial tcp 127.32.0.1:0->127.0.0.1:11211: bind: address already in use"));
  // Every port of the range is held: the pool's open connections and the TIME_WAIT sockets.
  const double tw = storm.value("net.time_wait{host=east/dataplane/0}");
  const double open = storm.value("client.open_conns{client=mc,host=east/dataplane/0}");
  INFO("TIME_WAIT " << tw << " open " << open);
  CHECK(tw + open == 28232);
  CHECK(storm.value("log.lines{host=east/dataplane/0}") > 10000);  // every error logged
  // Each failed dial searched the whole range inside bind(2): 28,232 ports x 134 ns = 3.8 ms
  // of kernel time on a core, far past sysmon's 20 us tick, so sysmon hands the dialling
  // goroutines' Ps to new Ms. The replay's full-size host (128 Ps) grows to ~1,000 threads
  // (docs/april-2026.md, "Full host size"); without the search's time it keeps ~one per P.
  const double threads = storm.value("go.threads{host=east/dataplane/0}");
  CHECK(threads > 4 * 128);

  LoadOptions free_search = o;
  free_search.overrides.push_back(
      parse_override("datacenters.east.services.dataplane.params.port_scan_cost=0"));
  Ran no_kernel_time = run_scenario_text(text, free_search);
  REQUIRE(no_kernel_time.result.invariants_hold());
  INFO("threads with the search's kernel time "
       << threads << ", without " << no_kernel_time.value("go.threads{host=east/dataplane/0}"));
  CHECK(no_kernel_time.value("go.threads{host=east/dataplane/0}") <= 128 + 16);
  // The same storm: the search's time moves when a dial fails, not whether it does.
  CHECK(no_kernel_time.value("client.dial_errors{client=mc,host=east/dataplane/0}") ==
        Approx(storm.value("client.dial_errors{client=mc,host=east/dataplane/0}")).epsilon(0.01));

  o.overrides.push_back(parse_override(
      "datacenters.east.services.dataplane.program.handlers.GetPostRecord.0.errgroup.limit=50"));
  Ran fixed = run_scenario_text(text, o);
  REQUIRE(fixed.result.invariants_hold());
  CHECK(fixed.value("client.dial_errors{client=mc,host=east/dataplane/0}") == 0);
  CHECK(fixed.value("net.time_wait{host=east/dataplane/0}") == 0);
  CHECK(fixed.value("go.threads{host=east/dataplane/0}") <= 128 + 16);
}

TEST_CASE("go-service: a crash closes the gomemcache connections and the restart builds a new client") {
  std::string text = read_through("capacity_items: 1M",
                                  "faults:\n  - {type: crash, at: +20s, target: east/api/0, "
                                  "duration: 1s}\n");
  text = replace(text, "        kind: go-service\n",
                 "        kind: go-service\n        params: {restart_delay: 5s}\n");
  Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
  ScenarioRun run(s, builtin_registry());
  auto& m = run.metrics();
  run.advance_to(19 * sim::kSecond);
  const double hits_before = m.value("cache.hits{client=mc,host=east/api/0}");
  const double conns_before = m.value("memcached.curr_connections{host=east/cache/0}");
  REQUIRE(conns_before > 0);
  run.advance_to(22 * sim::kSecond);
  // Dead: the server saw every connection go, and they wait in TIME_WAIT on the client side.
  CHECK(m.value("memcached.curr_connections{host=east/cache/0}") == 0);
  CHECK(m.value("net.time_wait{host=east/api/0}") >= conns_before);
  RunResult r = run.run();
  REQUIRE(r.invariants_hold());
  // Back at 00:00:25 with a new client: the cache (still warm on the server) serves again.
  CHECK(m.value("cache.hits{client=mc,host=east/api/0}") > hits_before + 10000);
  CHECK(m.value("memcached.curr_connections{host=east/cache/0}") > 0);
}

TEST_CASE("go-service: a port range of ten ports runs out after ten surplus closes") {
  // 10 ephemeral ports toward one store host, one idle connection kept: each request's four
  // parallel calls need four connections, three of which are closed into TIME_WAIT. The
  // range (60990-60999) is full after the pooled one plus nine in TIME_WAIT, and the next dial
  // fails with Go's text for connect(2)'s EADDRNOTAVAIL.
  std::string text = two_tier(replace(kFanOut12, "tasks: 12", "tasks: 4"), "{constant: 10ms}",
                              "{target: store, max_idle: 1}", "1/s");
  text = replace(text, "LIMIT", "-1");
  text = replace(text, "        kind: go-service\n",
                 "        kind: go-service\n        params: {port_range_low: 60990, "
                 "port_range_high: 60999}\n");
  Ran r = run_scenario_text(text);
  REQUIRE(r.result.invariants_hold());
  CHECK(r.value("net.time_wait{host=east/api/0}") + r.value("client.open_conns{client=store,host=east/api/0}") == 10);
  CHECK(r.value("client.dial_errors{client=store,host=east/api/0}") > 0);
  std::string first;
  for (const auto& [host, p] : r.run->phases()) {
    if (p.what.find("first dial error") != std::string::npos) first = p.what;
  }
  CHECK_THAT(first, Catch::Contains("connect: cannot assign requested address"));
  // Three requests (12 dials, 9 surplus closes) fit; the fourth cannot dial all it needs.
  CHECK(r.value("handler.ok{handler=get,host=east/api/0}") >= 3);
  CHECK(r.value("handler.failed{handler=get,host=east/api/0}") > 0);
}

TEST_CASE("go-service: a net_http dial's port search is a syscall that can strand its M") {
  // The ten-port range above, with a search made slow on purpose (2 ms per port examined, a
  // full failed search 20 ms): each failed dial is a syscall far past sysmon's 20 us tick and
  // Go's 10 ms retake, so its P goes to another M and the threads outgrow the 4 Ps. With the
  // measured 134 ns per port a ten-port search is 1.3 us, never charged.
  std::string text = two_tier(replace(kFanOut12, "tasks: 12", "tasks: 4"), "{constant: 10ms}",
                              "{target: store, max_idle: 1}", "20/s");
  text = replace(text, "LIMIT", "-1");
  auto with_cost = [&](const std::string& cost) {
    return replace(text, "        kind: go-service\n",
                   "        kind: go-service\n        params: {port_range_low: 60990, "
                   "port_range_high: 60999, cores: 4, port_scan_cost: " +
                       cost + "}\n");
  };
  Ran slow = run_scenario_text(with_cost("2ms"));
  Ran measured = run_scenario_text(with_cost("134ns"));
  REQUIRE(slow.result.invariants_hold());
  REQUIRE(measured.result.invariants_hold());
  REQUIRE(slow.value("client.dial_errors{client=store,host=east/api/0}") > 100);
  INFO("threads: slow search " << slow.value("go.threads{host=east/api/0}") << ", measured "
                               << measured.value("go.threads{host=east/api/0}"));
  CHECK(slow.value("go.threads{host=east/api/0}") > 8);
  CHECK(measured.value("go.threads{host=east/api/0}") <= 6);
}

TEST_CASE("go-service: an OOM kill inside a go statement ends the goroutines of the dead process") {
  // Batches of 60k URIs, one goroutine each: their stacks cross the 150 MiB container limit
  // inside the errgroup's go statement, and the kill runs there, within the handler's step.
  // The dead process must run no further statement: neither the handler (no more go
  // statements) nor a new goroutine's steps (its gomemcache client died with it). Found by
  // `skysim fuzz` on a composed world: seeds 88, 92, 187 and 229 segfaulted before.
  const std::string text = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 5s
datacenters:
  east:
    services:
      cache: {kind: memcached}
      api:
        kind: go-service
        params: {memory_limit: 150MiB, restart_delay: 1s}
        program:
          clients:
            mc: {target: cache, driver: gomemcache, max_idle: 100, rtt: 50us}
          handlers:
            get:
              - errgroup:
                  tasks_from: request_size
                  do:
                    - cache_get: {client: mc, keys: 10k, on_miss: [{sleep: {}}]}
sources:
  readers: {from: east, target: api.get, rate: 2/s, request_size: {constant: 60000}}
)";
  Ran r = run_scenario_text(text);
  REQUIRE(r.result.invariants_hold());
  int deaths = 0;
  for (const auto& [host, p] : r.run->phases()) {
    if (p.what.find("process died") != std::string::npos) ++deaths;
  }
  CHECK(deaths > 0);
  CHECK(r.value("requests.failed{client=readers,endpoint=get}") > 0);
}

TEST_CASE(
    "go-service: a timeline deploy ships SetLimit(3): the process is replaced, later requests run "
    "in waves") {
  // The errgroup of 12 calls without a limit (10.1 ms a request), then at +5s a deploy of
  // limit 3 (40.4 ms: four waves). The new build is a new process: the old one's 12 pooled
  // connections close into TIME_WAIT, the new one dials its own.
  std::string text = two_tier(replace(kFanOut12, "LIMIT", "-1"), "{constant: 10ms}",
                              "{target: store, max_idle: 16}", "1/s",
                              "timeline:\n  - at: +5s\n    set:\n      "
                              "datacenters.east.services.api.program.handlers.get.0.errgroup."
                              "limit: 3\n");
  Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
  ScenarioRun run(s, builtin_registry());
  auto& m = run.metrics();
  const auto& latency =
      m.histogram("handler.latency_ns", {{"handler", "get"}, {"host", "east/api/0"}});
  run.advance_to(4 * sim::kSecond);
  CHECK(static_cast<double>(latency.quantile(0.99)) / 1e6 == Approx(10.1).epsilon(0.02));
  CHECK(m.value("net.time_wait{host=east/api/0}") == 0);
  RunResult r = run.run();
  REQUIRE(r.invariants_hold());
  // ~55 of ~60 requests ran after the deploy: the median is the limited build's.
  CHECK(static_cast<double>(latency.quantile(0.5)) / 1e6 == Approx(40.4).epsilon(0.02));
  CHECK(m.value("net.time_wait{host=east/api/0}") == 12);  // the old process's pool (60 s)
  CHECK(m.value("go.crashes{host=east/api/0}") == 0);      // a deploy is not a crash
  bool noted = false;
  for (const auto& [host, p] : run.phases()) {
    noted |= p.what == "deploy: handlers.get.0.errgroup.limit = 3 (the process is replaced)";
  }
  CHECK(noted);
}

TEST_CASE(
    "go-service: a timeline deploy of the April band-aid stops a fixed source's bind errors") {
  // A sidecar memcached, one idle connection kept, ten ephemeral ports: eight lookups at once
  // from one bound source 127.32.0.1 fill its ports (bind: address already in use). At +30s
  // the band-aid ships (a random 127.x.y.z per dial): each dial then has a fresh address's
  // ports, and the errors stop.
  std::string text = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 1m
datacenters:
  east:
    services:
      cache:
        kind: memcached
        params: {capacity_items: 1M}
      api:
        kind: go-service
        params: {port_range_low: 60990, port_range_high: 60999}
        program:
          clients:
            mc: {target: cache, driver: gomemcache, local: true, max_idle: 1, dialer: fixed_source}
          handlers:
            get:
              - errgroup:
                  tasks: 8
                  do:
                    - cache_get:
                        client: mc
                        keys: 10k
                        on_error: miss
                        on_miss:
                          - cpu: {time: {constant: 10us}}
sources:
  users: {from: east, target: api.get, rate: 2/s}
timeline:
  - at: +30s
    set:
      datacenters.east.services.api.program.clients.mc.dialer: random_loopback
)";
  Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
  ScenarioRun run(s, builtin_registry());
  auto& m = run.metrics();
  const std::string errors = "client.dial_errors{client=mc,host=east/api/0}";
  run.advance_to(29 * sim::kSecond);
  const double before = m.value(errors);
  CHECK(before > 100);
  run.advance_to(31 * sim::kSecond);
  const double at_deploy = m.value(errors);
  RunResult r = run.run();
  REQUIRE(r.invariants_hold());
  INFO("dial errors at 29 s " << before << ", at 31 s " << at_deploy << ", at the end "
                              << m.value(errors));
  CHECK(m.value(errors) == at_deploy);
  CHECK(m.value("client.dials{client=mc,host=east/api/0}") > 200);
}

TEST_CASE("go-service: a deploy names what it changes, and wiring cannot be deployed") {
  const std::string base =
      two_tier("            get:\n              - call: {client: store, endpoint: serve}");
  auto with = [&](const std::string& key, const std::string& value) {
    return errors_of(base + "timeline:\n  - at: +5s\n    set:\n      " + key + ": " + value + "\n");
  };
  const std::string api = "datacenters.east.services.api.program.";
  CHECK(with(api + "clients.store.max_idle", "4") == "OK");
  CHECK(with(api + "handlers.get.0.call.timeout", "1s").find("no parameter 'timeout'") !=
        std::string::npos);  // call steps take the client's timeout
  CHECK_THAT(with(api + "handlers.get.0.call.endpoint", "other"),
             Catch::Contains("cannot deploy") && Catch::Contains("wiring"));
  CHECK_THAT(with(api + "clients.store.driver", "gocql"), Catch::Contains("wiring"));
  CHECK_THAT(with(api + "handlers.get.3.call.size", "1KiB"),
             Catch::Contains("no client or step at"));
  CHECK_THAT(with(api + "clients.store.max_idle", "many"), Catch::Contains("t.yaml:"));
  CHECK_THAT(with("datacenters.east.services.store.program.clients.x.max_idle", "4"),
             Catch::Contains("runs no program"));
}

TEST_CASE(
    "go-service: the April file's band-aid and Wednesday windows, its replay and its postmortem "
    "variant") {
  const std::string text = source_file("scenarios/april-2026-outage.yaml");
  auto load_variant = [&](const std::string& variant) {
    LoadOptions o;
    if (!variant.empty()) o.overrides.push_back(parse_override("variant=" + variant));
    return load_scenario_text(text, "april-2026-outage.yaml", builtin_registry(), o);
  };
  auto deploys = [&](const std::string& variant) {
    Scenario s = load_variant(variant);
    std::vector<std::string> out;
    for (const auto& e : s.timeline) {
      for (const auto& a : e.actions) {
        if (a.param.find(".program.") == std::string::npos) continue;
        out.push_back(sim::format_iso8601(s.epoch_unix_ns + e.at) + " " + a.target + " " +
                      a.param.substr(a.param.find(".program.") + 9) + "=" + a.value.text);
      }
    }
    return out;
  };
  CHECK(deploys("bandaid") ==
        std::vector<std::string>{
            "2026-04-06T17:00:00Z east/dataplane/0 clients.mc.dialer=random_loopback",
            "2026-04-06T17:00:00Z west/dataplane/0 clients.mc.dialer=random_loopback"});
  CHECK(deploys("wednesday") ==
        std::vector<std::string>{
            "2026-04-08T15:00:00Z east/dataplane/0 handlers.GetPostRecord.0.errgroup.limit=50",
            "2026-04-08T15:00:00Z west/dataplane/0 handlers.GetPostRecord.0.errgroup.limit=50",
            "2026-04-08T17:00:00Z east/dataplane/0 clients.mc.dialer=fixed_source",
            "2026-04-08T17:00:00Z west/dataplane/0 clients.mc.dialer=fixed_source"});
  // The whole period at the replay's default size, with its three deploys and Monday's load.
  CHECK(deploys("") ==
        std::vector<std::string>{
            "2026-04-06T17:00:00Z east/dataplane/0 clients.mc.dialer=random_loopback",
            "2026-04-06T17:00:00Z west/dataplane/0 clients.mc.dialer=random_loopback",
            "2026-04-08T15:00:00Z east/dataplane/0 handlers.GetPostRecord.0.errgroup.limit=50",
            "2026-04-08T15:00:00Z west/dataplane/0 handlers.GetPostRecord.0.errgroup.limit=50",
            "2026-04-08T17:00:00Z east/dataplane/0 clients.mc.dialer=fixed_source",
            "2026-04-08T17:00:00Z west/dataplane/0 clients.mc.dialer=fixed_source"});
  Scenario replay = load_variant("");
  // The west is the east's copy, its own hosts, with users only.
  REQUIRE(replay.datacenters.size() == 2);
  CHECK(replay.datacenters.at(1).name == "west");
  CHECK(replay.datacenters.at(1).services.size() == replay.datacenters.at(0).services.size());
  int west_sources = 0;
  for (const auto& src : replay.sources) west_sources += src.from == "west" ? 1 : 0;
  CHECK(west_sources == 2);
  CHECK(replay.scale == 0.05);
  CHECK(sim::format_iso8601(replay.epoch_unix_ns) == "2026-04-03T12:00:00Z");
  REQUIRE(!replay.timeline.empty());
  CHECK(replay.timeline.front().actions.at(0).type == ActionType::SetSourceRate);
  CHECK(replay.timeline.front().actions.at(0).value.number == Approx(0.05));
  // The post-mortem's account.
  Scenario pm = load_variant("postmortem");
  const sim::ParamValues& host = pm.datacenters.at(0).services.at(2).host_params.at(0);
  CHECK(pm.datacenters.at(0).services.at(2).name == "dataplane");
  CHECK_FALSE(host.flag("log_write_lock"));
  CHECK_FALSE(host.flag("sysmon_parks"));
  CHECK(host.choice("core_sharing") == "processor_sharing");
}

namespace {
// A read-through whose every lookup misses (fill off) over `keys` keys; on a miss a 1 MiB
// buffer held for the request and a Scylla read naming the missed key or not (`KEY`).
std::string keyed_read_through(const std::string& key, const std::string& keys) {
  return read_through_with("capacity_items: 1M",
                           R"(              - cache_get:
                  client: mc
                  keys: )" + keys +
                               R"(
                  fill: false
                  on_miss:
                    - alloc: {bytes: 1MiB}
                    - call: {client: db, endpoint: read, key: )" +
                               key + R"(}
)",
                           "", "30s");
}
}  // namespace

TEST_CASE("go-service read-through: a call with key: cache reads the missed key's partition") {
  // Three keys, every lookup a miss: naming the key puts all ~15,000 reads on three partitions
  // (their replicas' shards), where an unnamed read lands on any of the 48 shards.
  Ran keyed = run_scenario_text(keyed_read_through("cache", "3"));
  Ran spread = run_scenario_text(keyed_read_through("none", "3"));
  REQUIRE(keyed.result.invariants_hold());
  REQUIRE(spread.result.invariants_hold());
  const double reads = keyed.value("cache.misses{client=mc,host=east/api/0}");
  REQUIRE(reads > 10000);
  const double keyed_max = keyed.value("scylla.max_shard_ops{host=east/timeline/0}");
  const double spread_max = spread.value("scylla.max_shard_ops{host=east/timeline/0}");
  INFO("reads " << reads << ", busiest shard " << keyed_max << " keyed, " << spread_max
                << " spread");
  CHECK(keyed_max > 5 * spread_max);
  CHECK(keyed_max >= reads / 3 * 0.9);  // a key's partition: each read reaches its replicas
  // The buffer the on_miss steps hold is the request's: released when the handler returns.
  CHECK(keyed.value("go.heap_live_bytes{host=east/api/0}") < 96.0 * (1 << 20));
}

TEST_CASE("go-service: key: cache outside a cache_get's on_miss is one error at its line") {
  const std::string ok = keyed_read_through("cache", "3");
  CHECK(errors_of(ok) == "OK");
  const std::string outside =
      replace(ok, "            get:\n",
              "            get:\n              - call: {client: db, endpoint: read, key: cache}\n");
  CHECK_THAT(errors_of(outside),
             Catch::Contains("t.yaml:21:") && Catch::Contains("not in one's on_miss"));
}

TEST_CASE("go-service: gocql calls that find every connection dialing wait for a dial, not spin") {
  // Eight reads at once into an empty gocql pool of two connections whose dials take time (a
  // port search of 1 ms per port examined: a syscall on a core): six calls find both still
  // dialing and wait for one to finish. They used to poll every rtt, and with rtt 0 (the
  // documented setting against a scylla target) that spun at one instant and never let the
  // clock reach the dials' end (found by april-in-yaml's band-aid window, seed 4: 13 GB of
  // queued wake-ups, then std::bad_alloc).
  const std::string text = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 10s
datacenters:
  east:
    services:
      timeline:
        kind: scylla
        params: {nodes: 6, shards_per_node: 8, partitions: 10k}
      api:
        kind: go-service
        params: {port_scan_cost: 1ms}
        program:
          clients:
            db: {target: timeline, driver: gocql, rtt: 0s, timeout: 1s}
          handlers:
            get:
              - errgroup:
                  tasks: 8
                  do:
                    - call: {client: db, endpoint: read}
sources:
  readers: {from: east, target: api.get, rate: 1/s}
)";
  Ran r = run_scenario_text(text);
  REQUIRE(r.result.invariants_hold());
  const double issued = r.value("requests.issued{client=readers,endpoint=get}");
  REQUIRE(issued > 3);
  CHECK(r.value("handler.ok{handler=get,host=east/api/0}") == issued);
  CHECK(r.value("client.dials{client=db,host=east/api/0}") == 2);
  CHECK(r.value("client.timeouts{client=db,host=east/api/0}") == 0);
}
