// The interning kind as a composition (issue 26, M6): an `fdb` service, a go-service's fdb
// client, and the semaphore, uid_alloc and fdb_txn steps. Their wiring errors, the semaphore
// against the arithmetic of a bounded pool, the transactions against contention, and the
// composition against the old uid-interning kind on the same workload.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "scenario_fixtures.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

using namespace skysim::scenarios;
using skysim::scenarios::testing::errors_of;
using Ran = skysim::scenarios::testing::TextRun;
using skysim::scenarios::testing::run_scenario_text;

namespace {

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// An fdb service `db`, a queue-server `store`, and a go-service `api` whose handlers are
// HANDLERS; RATE requests/s to api.intern.
std::string world(const std::string& handlers, const std::string& rate = "200/s",
                  const std::string& duration = "5s", const std::string& extra = "") {
  return R"(name: t
epoch: 2025-09-26T12:00:00Z
duration: )" +
         duration + R"(
datacenters:
  east:
    services:
      db:
        kind: fdb
      store:
        kind: queue-server
        params: {workers: 4, service_time: {constant: 1ms}}
      api:
        kind: go-service
        params: {restart_delay: 1s}
        program:
          clients:
            db: {target: db, driver: fdb}
            st: {target: store}
          handlers:
)" + handlers +
         R"(
sources:
  users:
    from: east
    target: api.intern
    rate: )" +
         rate + "\n" + extra;
}

const char* kIntern = R"(            intern:
              - uid_alloc: {client: db}
)";

}  // namespace

TEST_CASE("fdb composition: wiring errors name the file:line and what is expected") {
  const std::string ok = world(kIntern);
  CHECK(errors_of(ok) == "OK");
  CHECK_THAT(errors_of(replace(ok, "{target: db, driver: fdb}", "{target: store, driver: fdb}")),
             Catch::Contains("an fdb client needs an fdb service, not 'store' (queue-server)"));
  CHECK_THAT(errors_of(replace(ok, "{target: db, driver: fdb}", "{target: db}")),
             Catch::Contains("'db' is an fdb service: its client needs driver: fdb"));
  CHECK_THAT(errors_of(replace(ok, "uid_alloc: {client: db}", "uid_alloc: {client: st}")),
             Catch::Contains("client 'st' is not an fdb client"));
  CHECK_THAT(
      errors_of(replace(ok, "uid_alloc: {client: db}", "call: {client: db, endpoint: serve}")),
      Catch::Contains("client 'db' is an fdb client: use uid_alloc or fdb_txn"));
  CHECK_THAT(
      errors_of(replace(ok, "{target: db, driver: fdb}", "{target: db, driver: fdb, rtt: 1ms}")),
      Catch::Contains("t.yaml:"));
  CHECK_THAT(
      errors_of(replace(ok, "{target: db, driver: fdb}", "{target: db, driver: fdb, rtt: 1ms}")),
      Catch::Contains("'rtt' does not apply to an fdb client"));
  CHECK_THAT(errors_of(replace(ok, "kind: fdb", "kind: fdb\n        hosts: 2")),
             Catch::Contains("an fdb service is one cluster"));
  // Checked when the scenario is validated, not when the run builds the allocator.
  const std::string wide = errors_of(replace(
      ok, "uid_alloc: {client: db}", "uid_alloc: {client: db, prefix_bits: 32, counter_bits: 40}"));
  CHECK_THAT(wide, Catch::Contains("uid_alloc at t.yaml:"));
  CHECK_THAT(wide, Catch::Contains("bits"));
  CHECK_THAT(errors_of(replace(ok, "uid_alloc: {client: db}",
                               "semaphore: {do: [{uid_alloc: {client: db}}]}")),
             Catch::Contains("limit"));
}

TEST_CASE("fdb composition: a semaphore of L units around a 100 ms step serves L / 100 ms") {
  // Little's law on a saturated pool: 2 holders x 10/s each = 20/s, whatever arrives.
  const std::string capped = world(R"(            intern:
              - semaphore:
                  limit: 2
                  do:
                    - sleep: {time: {constant: 100ms}}
)",
                                   "100/s", "10s");
  Ran r = run_scenario_text(capped);
  const double ok = r.value("requests.ok{client=users,endpoint=intern}");
  INFO("served " << ok);
  CHECK(ok >= 195);
  CHECK(ok <= 200);
  // Without it the same handler serves all ~1,000 arrivals.
  Ran free = run_scenario_text(replace(capped, "limit: 2", "limit: 1000"));
  CHECK(free.value("requests.ok{client=users,endpoint=intern}") > 900);

  SECTION("a holder killed with its process gives its unit back") {
    // Crashed at +2 s, restarted 1 s later: 7 s of serving at 20/s afterwards. A leaked unit
    // would halve it (or stop it, both leaked).
    Ran c = run_scenario_text(capped + "faults:\n  - {type: crash, at: +2s, target: east/api/0}\n");
    const double served = c.value("requests.ok{client=users,endpoint=intern}");
    INFO("served with a crash " << served);
    CHECK(served >= 2 * 20 + 6.5 * 20);
    CHECK(served < ok);
  }
}

TEST_CASE(
    "fdb composition: fdb_txn on a hot key conflicts and retries, on a wide space it does not") {
  const std::string hot = world(R"(            intern:
              - fdb_txn: {client: db, keys: 1, reads: 1, writes: 1}
)",
                                "500/s");
  Ran h = run_scenario_text(hot);
  const double conflicts = h.value("fdb.conflicts{host=east/db/0}");
  const double commits = h.value("fdb.commits{host=east/db/0}");
  INFO("hot key: " << commits << " commits, " << conflicts << " conflicts");
  // One key read and written by every transaction: each commit batch (1 ms) admits one of
  // the transactions that read it before the last commit; the rest conflict and retry.
  CHECK(conflicts > 0.5 * commits);
  CHECK(h.value("requests.ok{client=users,endpoint=intern}") > 0);
  Ran w = run_scenario_text(replace(hot, "keys: 1,", "keys: 1M,"));
  INFO("wide: " << w.value("fdb.commits{host=east/db/0}") << " commits");
  CHECK(w.value("fdb.conflicts{host=east/db/0}") < 0.01 * w.value("fdb.commits{host=east/db/0}"));
  CHECK(w.value("requests.failed{client=users,endpoint=intern}") == 0);
  // Write-only transactions have no read conflict range: they never conflict.
  Ran blind = run_scenario_text(replace(hot, "reads: 1,", "reads: 0,"));
  CHECK(blind.value("fdb.conflicts{host=east/db/0}") == 0);
}

namespace {

// Mean and standard error of the mean of one figure over runs.
struct Sample {
  double sum = 0, sum_sq = 0;
  int n = 0;
  void add(double x) {
    sum += x;
    sum_sq += x * x;
    ++n;
  }
  double mean() const { return sum / n; }
  double standard_error() const {
    const double var = (sum_sq - sum * sum / n) / (n - 1);
    return std::sqrt(std::max(var, 0.0) / n);
  }
};

// The two means agree: their difference is within 4 standard errors of it (a two-sample z
// test that a real difference of the mechanism fails; by chance, 6 in 100,000 runs).
bool agree(const Sample& a, const Sample& b) {
  const double se = std::hypot(a.standard_error(), b.standard_error());
  return std::abs(a.mean() - b.mean()) <= 4 * se;
}

}  // namespace

TEST_CASE("fdb composition: uid_alloc interns as the uid-interning kind does") {
  // The same workload both ways: 16 sequences (prefix_bits 4) so sequences conflict, 32
  // concurrent internings, 2,000/s for 5 s (saturated: ~800/s are served). Different random
  // streams, so the figures agree over seeds, not bit for bit; one seed's count varies by ~5 %.
  const std::string composed = world(R"(            intern:
              - semaphore:
                  limit: 32
                  do:
                    - uid_alloc: {client: db, prefix_bits: 4, repeat_fraction: 30%}
)",
                                     "2000/s");
  const std::string old_kind = R"(name: t
epoch: 2025-09-26T12:00:00Z
duration: 5s
datacenters:
  east:
    services:
      api:
        kind: uid-interning
        params: {prefix_bits: 4, workers: 32, repeat_fraction: 30%}
sources:
  users:
    from: east
    target: api.intern
    rate: 2000/s
)";
  Sample c_ok, o_ok, c_conflict, o_conflict, c_p50, o_p50;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    LoadOptions opts;
    opts.seed = seed;
    Ran c = run_scenario_text(composed, opts);
    Ran o = run_scenario_text(old_kind, opts);
    REQUIRE(c.result.invariants_hold());
    c_ok.add(c.value("requests.ok{client=users,endpoint=intern}"));
    o_ok.add(o.value("requests.ok{client=users,endpoint=intern}"));
    c_conflict.add(c.value("uid.conflict_rate{host=east/db/0}"));
    o_conflict.add(o.value("uid.conflict_rate{host=east/api/0}"));
    c_p50.add(static_cast<double>(
        c.run->metrics()
            .histogram("uid.intern_latency_ns", {{"client", "db"}, {"host", "east/api/0"}})
            .quantile(0.5)));
    o_p50.add(static_cast<double>(o.run->metrics()
                                      .histogram("uid.intern_latency_ns", {{"host", "east/api/0"}})
                                      .quantile(0.5)));
  }
  INFO("acknowledged: composed " << c_ok.mean() << " ± " << c_ok.standard_error() << ", kind "
                                 << o_ok.mean() << " ± " << o_ok.standard_error());
  INFO("conflict rate: composed " << c_conflict.mean() << ", kind " << o_conflict.mean());
  INFO("intern P50 ms: composed " << c_p50.mean() / 1e6 << ", kind " << o_p50.mean() / 1e6);
  CHECK(o_conflict.mean() > 0.2);     // the workload does contend
  CHECK(o_ok.mean() < 0.6 * 10'000);  // and is saturated: the bound is the 32 units
  CHECK(agree(c_ok, o_ok));
  CHECK(agree(c_conflict, o_conflict));
  CHECK(agree(c_p50, o_p50));
}

TEST_CASE("fdb composition: the composed interning scenario holds its invariants") {
  LoadOptions o;
  o.overrides = {{"duration", "5s"}};
  Ran r = run_scenario_text(
      [] {
        std::ifstream f(std::string(SKYSIM_SOURCE_DIR) + "/scenarios/uid-interning-composed.yaml");
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
      }(),
      o);
  REQUIRE(r.result.invariants.size() >= 4);
  for (const auto& inv : r.result.invariants) {
    INFO(inv.name << ": " << inv.error);
    CHECK(inv.error.empty());
  }
  CHECK(r.value("requests.ok{client=firehose-indexer,endpoint=intern}") > 5 * 14000);
  CHECK(r.value("requests.failed{client=firehose-indexer,endpoint=intern}") == 0);
}
