// The April 2026 replay's default run, whole (Friday noon to Wednesday evening), against the
// issue's "Must show" list. One run (~1-2 minutes of CPU) feeds every check; each check reads
// the per-minute time series or the phases the hosts reported. What the model does not yet
// reproduce (the ~150-thread healthy baseline, a tenfold rather than larger thread surge, the
// ~30-minute cadence) is measured and written in docs/april-2026.md, not asserted here.
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

std::string host(const std::string& dc) { return "{dc=" + dc + ",host=" + dc + "/dataplane/0}"; }

// Dates of the scenario's own timeline (scenarios/april-2026-outage.yaml).
sim::Time at(const char* iso, std::int64_t epoch) { return sim::parse_iso8601_unix_ns(iso) - epoch; }

struct DefaultRun {
  std::unique_ptr<Scenario> scenario;
  std::unique_ptr<ScenarioRun> run;
  RunResult result;
  std::int64_t epoch = 0;

  DefaultRun() {
    scenario = std::make_unique<Scenario>(load_scenario_file(kApril, builtin_registry(), {}));
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

}  // namespace

TEST_CASE("April default run: the whole period against the issue's Must show", "[april][slow]") {
  const DefaultRun& r = default_run();
  REQUIRE(r.result.invariants_hold());
  const std::int64_t e = r.epoch;
  const sim::Time client = at("2026-04-03T20:00:00Z", e);
  const sim::Time monday = at("2026-04-06T08:00:00Z", e);
  const sim::Time band_aid = at("2026-04-06T17:00:00Z", e);
  const sim::Time fix = at("2026-04-08T15:00:00Z", e);
  const sim::Time band_aid_removed = at("2026-04-08T17:00:00Z", e);
  const sim::Time end = r.scenario->duration;
  const std::string east = host("east"), west = host("west");

  SECTION("before the batch client: no port error, no death, every user answered") {
    CHECK(r.delta("memcached.bind_errors" + east, 0, client) == 0);
    CHECK(r.delta("memcached.bind_errors" + west, 0, client) == 0);
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
    auto first = r.phases("first memcached dial error");
    REQUIRE(first.size() == 1);
    CHECK(first[0].first == "east/dataplane/0");
    CHECK(first[0].second.what.find("dial tcp 127.32.0.1:0->127.0.0.1:11211: bind: address "
                                    "already in use") != std::string::npos);
    CHECK(r.delta("memcached.bind_errors" + west, 0, end) == 0);
    // Bursts line up with big batches: a minute with bind errors had a batch arrive in it or in
    // the minute before (a batch holds its ports for TIME_WAIT's 60 s).
    auto errors = r.series("memcached.bind_errors" + east);
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
    CHECK(r.delta("memcached.bind_errors" + host("east"), settle, end) == 0);
    for (auto& [h, m] : r.phases("process died")) CHECK(m.at <= settle);
    CHECK(r.delta("memcached.bind_errors" + host("east"), band_aid_removed, end) == 0);
    CHECK(fix < band_aid_removed);
  }
}
