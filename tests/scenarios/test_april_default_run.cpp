// The April 2026 replay, whole (Friday noon to Wednesday evening), written as a composition of
// a memcached sidecar, a Scylla cluster and a go-service, against the "Must show" list:
// the default (Go's semantics on Linux's EEVDF) and the `postmortem` variant (the post-mortem's
// account, the default until issue 22 item 6). One run of each (~1 minute of CPU apiece) feeds
// its checks; each reads the per-minute time series or the phases the hosts reported. What a
// model does not reproduce (the default: no OOM kill at the replay's batch rate; the variant:
// x150 threads, a few minutes between kills) is measured and written in docs/april-2026.md, not
// asserted here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "sim/time.hpp"

using namespace skysim;
using namespace skysim::scenarios;

namespace {

const std::string kApril = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/april-2026-outage.yaml";

std::string host(const std::string& dc) { return "{host=" + dc + "/dataplane/0}"; }
// Failed dials of the data plane's gomemcache client: Go's "bind: address already in use".
std::string bind_errors(const std::string& dc) {
  return "client.dial_errors{client=mc,host=" + dc + "/dataplane/0}";
}

// Dates of the scenario's own timeline (scenarios/april-2026-outage.yaml).
sim::Time at(const char* iso, std::int64_t epoch) { return sim::parse_iso8601_unix_ns(iso) - epoch; }

struct DefaultRun {
  std::unique_ptr<Scenario> scenario;
  std::unique_ptr<ScenarioRun> run;
  RunResult result;
  std::int64_t epoch = 0;

  explicit DefaultRun(const std::vector<std::string>& overrides = {}) {
    LoadOptions o;
    for (const auto& s : overrides) o.overrides.push_back(parse_override(s));
    scenario = std::make_unique<Scenario>(load_scenario_file(kApril, builtin_registry(), o));
    run = std::make_unique<ScenarioRun>(*scenario, builtin_registry());
    result = run->run();
    epoch = scenario->epoch_unix_ns;
  }
  std::vector<std::pair<sim::Time, double>> series(const std::string& name) const {
    auto s = run->sampler().column(name);
    REQUIRE_FALSE(s.empty());
    return s;
  }
  // Change of a cumulative series over (from, to].
  double delta(const std::string& name, sim::Time from, sim::Time to) const {
    double a = 0, b = 0;
    for (auto [t, v] : series(name)) {
      if (t <= from) a = v;
      if (t <= to) b = v;
    }
    return b - a;
  }
  double max_in(const std::string& name, sim::Time from, sim::Time to) const {
    double m = 0;
    for (auto [t, v] : series(name)) {
      if (t > from && t <= to) m = std::max(m, v);
    }
    return m;
  }
  std::vector<std::pair<std::string, Milestone>> phases(const std::string& needle) const {
    std::vector<std::pair<std::string, Milestone>> out;
    for (auto& p : run->phases()) {
      if (p.second.what.find(needle) != std::string::npos) out.push_back(p);
    }
    return out;
  }
};

const DefaultRun& default_run() {
  static DefaultRun r;  // one run shared by the sections below
  return r;
}

// The post-mortem's account, the scenario's named variant: the replay's default until issue 22
// item 6. Fingerprint cca15e4fa5ebf1cf since the replay is a composition (memcached, scylla and
// go-service parts; issue 26) whose gocql pools are dialed at session start and whose failed
// fill Sets are logged as the kind's were (5983f2dc06e0f158, then a527d0d02ab93858, before
// each); d8c62155aade04e0 was the dataplane kind's.
const DefaultRun& postmortem_run() {
  static DefaultRun r({"variant=postmortem"});
  return r;
}

// The first dial error is the east's, in Go's words, and the west never has one.
void check_go_error_text_in_east_only(const DefaultRun& r) {
  auto first = r.phases("first memcache error of client mc");
  REQUIRE(first.size() == 1);
  CHECK(first[0].first == "east/dataplane/0");
  CHECK(first[0].second.what.find("dial tcp 127.32.0.1:0->127.0.0.1:11211: bind: address "
                                  "already in use") != std::string::npos);
  CHECK(r.delta(bind_errors("west"), 0, r.scenario->duration) == 0);
}

// The scenario's own dated events (scenarios/april-2026-outage.yaml), as times of the run.
struct Dates {
  sim::Time client, monday, band_aid, fix, band_aid_removed, end;
};
Dates dates(const DefaultRun& r) {
  const std::int64_t e = r.epoch;
  return {at("2026-04-03T20:00:00Z", e), at("2026-04-06T08:00:00Z", e),
          at("2026-04-06T17:00:00Z", e), at("2026-04-08T15:00:00Z", e),
          at("2026-04-08T17:00:00Z", e), r.scenario->duration};
}

}  // namespace

TEST_CASE("April post-mortem variant: the whole period against the issue's Must show",
          "[april][slow]") {
  const DefaultRun& r = postmortem_run();
  CHECK(r.result.fingerprint == 0xcca15e4fa5ebf1cfULL);
  REQUIRE(r.result.invariants_hold());
  const auto [client, monday, band_aid, fix, band_aid_removed, end] = dates(r);
  const std::string east = host("east"), west = host("west");

  SECTION("before the batch client: no port error, no death, every user answered") {
    CHECK(r.delta(bind_errors("east"), 0, client) == 0);
    CHECK(r.delta(bind_errors("west"), 0, client) == 0);
    CHECK(r.phases("process died").empty() == false);  // (there are deaths later)
    CHECK(r.phases("process died").front().second.at > client);
    for (const char* dc : {"east", "west"}) {
      double good = r.delta(std::string("user.requests.good{dc=") + dc + "}", 0, client);
      double bad = r.delta(std::string("user.requests.bad{dc=") + dc + "}", 0, client);
      REQUIRE(good > 1000);
      CHECK(good / (good + bad) >= 0.999);
      // ~150 OS threads per process at full size (threads scale with the cores: 128 x scale).
      const double full_size =
          r.max_in("go.threads" + host(dc), 0, client) / r.scenario->scale;
      INFO(dc << " healthy threads at full size " << full_size);
      CHECK(full_size >= 100);
      CHECK(full_size <= 200);
    }
  }

  SECTION("after it starts: Go's bind error text, in the client's datacenter only, in bursts") {
    check_go_error_text_in_east_only(r);
    // Bursts line up with big batches: a minute with bind errors had a batch arrive in it or in
    // the minute before (a batch holds its ports for TIME_WAIT's 60 s).
    auto errors = r.series(bind_errors("east"));
    auto batches = r.series("requests.issued{client=batch-service,endpoint=GetPostRecord}");
    std::map<sim::Time, double> issued(batches.begin(), batches.end());
    int error_minutes = 0, explained = 0;
    double prev_err = 0;
    for (std::size_t i = 0; i < errors.size(); ++i) {
      auto [t, v] = errors[i];
      if (v > prev_err && t > client && t <= band_aid) {
        ++error_minutes;
        auto now = issued.find(t);
        auto back2 = issued.find(t - 2 * sim::kMinute);
        if (now != issued.end() && back2 != issued.end() && now->second > back2->second) {
          ++explained;
        }
      }
      prev_err = v;
    }
    REQUIRE(error_minutes > 50);
    CHECK(explained >= 0.9 * error_minutes);
  }

  SECTION("user success dips in the east only") {
    CHECK(r.delta("user.requests.bad{dc=west}", 0, end) == 0);
    // The Monday spiral costs east users; count minutes below 90 % success.
    auto good = r.series("user.requests.good{dc=east}");
    auto bad = r.series("user.requests.bad{dc=east}");
    REQUIRE(good.size() == bad.size());
    int dips = 0;
    for (std::size_t i = 1; i < good.size(); ++i) {
      double g = good[i].second - good[i - 1].second, b = bad[i].second - bad[i - 1].second;
      if (good[i].first > monday && good[i].first <= band_aid && g + b > 0 && g / (g + b) < 0.9) {
        ++dips;
      }
    }
    CHECK(dips >= 10);
  }

  SECTION("the Monday spiral: threads, short GC pauses, repeated OOM kills, restarts into TIME_WAIT") {
    double healthy = r.max_in("go.threads" + east, 0, client);
    double surge = r.max_in("go.threads" + east, monday, band_aid);
    CHECK(surge >= 10 * healthy);
    // GC pauses grow with the runnable threads per core (the Ms a stop must preempt wait for
    // cores), not with the threads asleep in write(2), whose Ps Go takes without waiting
    // (docs/models/goruntime.md, "The GC on the host's cores"). In this run the surge's threads
    // sleep in blocked log writes and at most ~7 threads want the 6 cores: the Monday pauses
    // are longer than the healthy ones but stay short (measured 33 us against 10 us).
    // Before the mechanism, a 0.5-us-per-thread slope made them > 10x the healthy ones.
    const double healthy_stw = r.max_in("go.stw_last_ns" + east, 0, client);
    const double monday_stw = r.max_in("go.stw_last_ns" + east, monday, band_aid);
    CHECK(monday_stw > healthy_stw);
    CHECK(monday_stw < 100e3);
    int monday_kills = 0;
    for (auto& [h, m] : r.phases("OOMKilled")) {
      CHECK(h == "east/dataplane/0");
      if (m.at > monday && m.at <= band_aid) ++monday_kills;
    }
    CHECK(monday_kills >= 5);
    int restarts_into_time_wait = 0;
    for (auto& [h, m] : r.phases("process restarted")) {
      if (m.at > monday && m.at <= band_aid && m.what.find("; 0 sockets") == std::string::npos) {
        ++restarts_into_time_wait;
      }
    }
    CHECK(restarts_into_time_wait >= monday_kills / 2);
  }

  SECTION("the band-aid stops the spiral within minutes; the fix keeps it stopped") {
    const sim::Time settle = band_aid + 5 * sim::kMinute;
    CHECK(r.delta(bind_errors("east"), settle, end) == 0);
    for (auto& [h, m] : r.phases("process died")) {
      if (m.what.find("replaced by a deploy") == std::string::npos) CHECK(m.at <= settle);
    }
    CHECK(r.delta(bind_errors("east"), band_aid_removed, end) == 0);
    CHECK(fix < band_aid_removed);
  }
}

TEST_CASE("April default run (Go's semantics on EEVDF): the whole period against the Must show",
          "[april][slow]") {
  const DefaultRun& r = default_run();
  REQUIRE(r.result.invariants_hold());
  const auto [client, monday, band_aid, fix, band_aid_removed, end] = dates(r);
  const std::string east = host("east"), west = host("west");

  SECTION("before the batch client: ~150 threads at full size, no port error, every user answered") {
    CHECK(r.delta(bind_errors("east"), 0, client) == 0);
    for (const char* dc : {"east", "west"}) {
      const double full_size = r.max_in("go.threads" + host(dc), 0, client) / r.scenario->scale;
      INFO(dc << " healthy threads at full size " << full_size);
      CHECK(full_size >= 100);
      CHECK(full_size <= 200);
      double good = r.delta(std::string("user.requests.good{dc=") + dc + "}", 0, client);
      double bad = r.delta(std::string("user.requests.bad{dc=") + dc + "}", 0, client);
      REQUIRE(good > 1000);
      CHECK(bad == 0);
    }
  }

  SECTION("Go's error text, in the batch client's datacenter only") {
    check_go_error_text_in_east_only(r);
  }

  SECTION("threads about tenfold, far from Go's limit; GC pauses grow while threads outnumber cores") {
    const double healthy = r.max_in("go.threads" + east, 0, client);
    const double surge = r.max_in("go.threads" + east, client, band_aid);
    INFO("healthy " << healthy << ", surge " << surge);
    CHECK(surge >= 5 * healthy);
    CHECK(surge <= 20 * healthy);
    CHECK(r.phases("thread exhaustion").empty());
    // The port searches are runnable threads (kernel CPU in bind(2)): more of them than the
    // host's 6 cores, so the Ms a stop-the-world must preempt wait for a core and for EEVDF's
    // slice to end (docs/models/goruntime.md, "The GC on the host's cores").
    const double cores = 128 * r.scenario->scale;
    CHECK(r.max_in("go.runnable_threads_peak" + east, monday, band_aid) > cores);
    // Per-minute samples of the last pause, from the batch client's start to the band-aid
    // (measured: 10 us healthy, median ~20 us, the longest 4.6 ms).
    const double healthy_stw = r.max_in("go.stw_last_ns" + east, 0, client);
    const double surge_stw = r.max_in("go.stw_last_ns" + east, client, band_aid);
    INFO("STW healthy " << healthy_stw << " ns, with the batch client " << surge_stw << " ns");
    CHECK(surge_stw > 10 * healthy_stw);
    // The west has no port search: its pauses stay at the healthy level.
    CHECK(r.max_in("go.stw_last_ns" + west, client, band_aid) < surge_stw / 10);
  }

  SECTION("memory that is really there: tenfold threads leave the container far from its limit") {
    // At the replay's batch rate the default is not OOM-killed: ~70 threads of 58 KiB and the
    // goroutines of a batch are a few MB of the 175-MiB container (3.5 GiB x 0.05). The sweep
    // of the inputs that would kill it is in docs/april-2026.md, "What sets the cadence".
    const double limit = 3500.0 * 1024 * 1024 * r.scenario->scale;
    const double rss = r.max_in("go.rss_bytes" + east, 0, end);
    INFO("east RSS max " << rss / 1048576 << " MiB of " << limit / 1048576);
    CHECK(rss < 0.8 * limit);
    CHECK(r.phases("OOMKilled").empty());
  }

  SECTION("the band-aid stops the port errors within minutes; the fix keeps them stopped") {
    const sim::Time settle = band_aid + 5 * sim::kMinute;
    CHECK(r.delta(bind_errors("east"), client, band_aid) > 0);
    CHECK(r.delta(bind_errors("east"), settle, end) == 0);
    CHECK(r.delta(bind_errors("east"), band_aid_removed, end) == 0);
    CHECK(r.delta("user.requests.bad{dc=west}", 0, end) == 0);
  }
}
