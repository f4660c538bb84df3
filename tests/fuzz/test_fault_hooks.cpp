// The fault kinds fuzz draws beyond crashes and traffic, and the hooks they drive: the
// queue-server's link (delay spike, clogged link) and process pause (GC pause), and FDB's
// commit_unknown_result on an fdb service. Each hook must do what the fault claims and keep
// every invariant.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "fuzz/perturbation.hpp"
#include "fuzz/probes.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

using namespace skysim;

namespace {

scenarios::Scenario load(const std::string& rel) {
  return scenarios::load_scenario_file(std::string(SKYSIM_SOURCE_DIR) + "/" + rel,
                                       scenarios::builtin_registry());
}

// One queue-server host, 4 workers, 10 ms mean service, 200/s for 40 s; `timeline` appended.
std::string one_host(const std::string& timeline) {
  return R"(name: hooks
epoch: 2026-01-01T00:00:00Z
duration: 40s
seed: 3
datacenters:
  dc:
    services:
      q:
        kind: queue-server
        hosts: 1
        params: {workers: 4, service_time: {exponential: {mean: 10ms}}}
sources:
  s:
    client: c
    from: dc
    target: q.serve
    rate: 200/s
)" + timeline;
}

struct Outcome {
  std::map<std::string, double> counters;
  std::int64_t latency_max_ns = 0;
  bool invariants_hold = false;
};

Outcome run_text(const std::string& text) {
  auto s = scenarios::load_scenario_text(text, "hooks.yaml", scenarios::builtin_registry());
  scenarios::ScenarioRun run(s, scenarios::builtin_registry());
  auto r = run.run();
  Outcome o;
  o.invariants_hold = r.invariants_hold();
  sim::Labels host{{"host", "dc/q/0"}};
  for (const char* c :
       {"queue.link_delayed", "queue.link_clog_held", "queue.pauses", "queue.pause_stalled",
        "queue.paused_ns", "queue.served", "queue.arrivals", "queue.dropped"}) {
    o.counters[c] = static_cast<double>(run.metrics().counter(c, host).value());
  }
  o.latency_max_ns = run.metrics()
                         .histogram("requests.latency_ns", {{"client", "c"}, {"endpoint", "serve"}})
                         .max();
  return o;
}

std::string window(const std::string& param, const std::string& value, const std::string& back) {
  return "timeline:\n  - at: +10s\n    set: {datacenters.dc.services.q.host_overrides.0." + param +
         ": " + value + "}\n  - at: +12s\n    set: {datacenters.dc.services.q.host_overrides.0." +
         param + ": " + back + "}\n";
}

}  // namespace

TEST_CASE("the hooks do nothing at their defaults") {
  auto o = run_text(one_host(""));
  CHECK(o.invariants_hold);
  CHECK(o.counters["queue.link_delayed"] == 0);
  CHECK(o.counters["queue.pauses"] == 0);
  CHECK(o.latency_max_ns < 500 * sim::kMillisecond);
}

TEST_CASE("a delay spike delays every request sent during it, in order") {
  auto o = run_text(one_host(window("link_delay", "700ms", "0s")));
  CHECK(o.invariants_hold);
  // About 200/s for 2 s went over the slow link.
  CHECK(o.counters["queue.link_delayed"] > 300);
  CHECK(o.counters["queue.link_delayed"] < 500);
  CHECK(o.latency_max_ns >= 700 * sim::kMillisecond);
  // Nothing lost: all but the few still in service at the end were served.
  CHECK(o.counters["queue.dropped"] == 0);
  CHECK(o.counters["queue.arrivals"] - o.counters["queue.served"] < 20);
}

TEST_CASE("a clogged link holds traffic and delivers it when it clears") {
  auto o = run_text(one_host(window("link_clogged", "true", "false")));
  CHECK(o.invariants_hold);
  CHECK(o.counters["queue.link_clog_held"] > 300);
  // The first request held waited the whole 2 s clog.
  CHECK(o.latency_max_ns >= 1900 * sim::kMillisecond);
  // Nothing lost: all but the few still in service at the end were served.
  CHECK(o.counters["queue.dropped"] == 0);
  CHECK(o.counters["queue.arrivals"] - o.counters["queue.served"] < 20);
}

TEST_CASE("a GC pause stops service under way and resumes it") {
  auto o = run_text(one_host(window("paused", "true", "false")));
  CHECK(o.invariants_hold);  // work-conserving: a paused host is not idle on purpose
  CHECK(o.counters["queue.pauses"] == 1);
  CHECK(o.counters["queue.paused_ns"] == 2 * sim::kSecond);
  CHECK(o.counters["queue.pause_stalled"] >= 1);
  CHECK(o.latency_max_ns >= 1900 * sim::kMillisecond);
  // Nothing lost: all but the few still in service at the end were served.
  CHECK(o.counters["queue.dropped"] == 0);
  CHECK(o.counters["queue.arrivals"] - o.counters["queue.served"] < 20);
}

TEST_CASE("a host crashing during a clog and a pause loses nothing uncounted") {
  std::string t = one_host(
      "timeline:\n"
      "  - at: +10s\n"
      "    set: {datacenters.dc.services.q.host_overrides.0.link_clogged: true,"
      " datacenters.dc.services.q.host_overrides.0.paused: true}\n"
      "  - at: +12s\n"
      "    set: {datacenters.dc.services.q.host_overrides.0.link_clogged: false}\n"
      "  - at: +13s\n"
      "    set: {datacenters.dc.services.q.host_overrides.0.paused: false}\n"
      "faults:\n  - {type: crash, at: +11s, target: dc/q/0, duration: 1500ms}\n");
  auto o = run_text(t);
  CHECK(o.invariants_hold);
}

TEST_CASE("fuzz draws the new fault kinds only where a service has the hook") {
  auto demo = load("scenarios/demo.yaml");
  auto interning = load("scenarios/fuzz/interning.yaml");
  std::map<std::string, int> on_demo, on_interning;
  for (std::uint64_t s = 1; s <= 60; ++s) {
    for (const auto& f : fuzz::draw_perturbation(demo, s).faults) {
      ++on_demo[fuzz::fault_kind_name(f.kind)];
    }
    for (const auto& f : fuzz::draw_perturbation(interning, s).faults) {
      ++on_interning[fuzz::fault_kind_name(f.kind)];
    }
  }
  for (const char* k : {"delay-spike", "clog", "gc-pause"}) {
    INFO(k);
    CHECK(on_demo[k] > 0);
    CHECK(on_interning[k] == 0);
  }
  CHECK(on_demo["commit-unknown"] == 0);
  CHECK(on_interning["commit-unknown"] > 0);
  // Every perturbed world with the new kinds loads and runs with every invariant holding.
  for (std::uint64_t s = 1; s <= 6; ++s) {
    for (const auto* base : {&demo, &interning}) {
      auto p = fuzz::draw_perturbation(*base, s);
      std::string yaml = fuzz::perturbed_yaml(*base, p);
      INFO(yaml);
      auto loaded = scenarios::load_scenario_text(yaml, "p.yaml", scenarios::builtin_registry());
      if (base == &demo) continue;  // demo worlds run in the fuzz smoke test
      scenarios::ScenarioRun run(loaded, scenarios::builtin_registry());
      CHECK(run.run().invariants_hold());
    }
  }
}

TEST_CASE("commit_unknown_result windows reach the FDB model and interning stays unique") {
  auto base = load("scenarios/fuzz/interning.yaml");
  fuzz::Perturbation p;
  p.base_file = base.file;
  p.seed = 5;
  p.duration = base.duration;
  fuzz::Fault f;
  f.kind = fuzz::FaultKind::CommitUnknown;
  f.target = "east.db";
  f.strength = 0.25;
  f.at = 5 * sim::kSecond;
  f.length = 5 * sim::kSecond;
  p.faults.push_back(f);
  auto run_one = [&](const fuzz::Perturbation& q) {
    auto s = scenarios::load_scenario_text(fuzz::perturbed_yaml(base, q), "p.yaml",
                                           scenarios::builtin_registry());
    scenarios::ScenarioRun run(s, scenarios::builtin_registry());
    auto r = run.run();
    CHECK(r.invariants_hold());
    double unknown = 0;
    run.metrics().for_each([&](const sim::SeriesView& v) {
      if (v.name == "uid.commit_unknown_results") unknown += (*v.gauge_fn)();
    });
    return unknown;
  };
  double with = run_one(p);
  p.faults.clear();
  double without = run_one(p);
  CHECK(without == 0);
  // ~1500/s x 5 s x 25 %, of which the retries see some: well above a hundred.
  CHECK(with > 100);
}

TEST_CASE("a probe is expected only of bases that can reach it") {
  auto demo = fuzz::draw_perturbation(load("scenarios/demo.yaml"), 1);
  auto interning = fuzz::draw_perturbation(load("scenarios/fuzz/interning.yaml"), 1);
  std::map<std::string, std::pair<bool, bool>> applies;  // probe -> (demo, interning)
  for (const auto& spec : fuzz::probe_specs()) {
    applies[spec.name] = {fuzz::probe_applies(spec, demo), fuzz::probe_applies(spec, interning)};
  }
  using P = std::pair<bool, bool>;
  CHECK(applies["crash injected"] == P{true, true});
  CHECK(applies["requests failed"] == P{true, true});
  CHECK(applies["queue rejected"] == P{true, false});
  CHECK(applies["param flip"] == P{true, false});  // uid-interning has no settable count
  CHECK(applies["delay spike"] == P{true, false});
  CHECK(applies["gc pause"] == P{true, false});
  CHECK(applies["commit unknown"] == P{false, true});
  // The fdb service is what draws the 1021 window.
  const bool knob_drawn =
      std::any_of(interning.swarm.begin(), interning.swarm.end(),
                  [](const std::string& k) { return k.starts_with("commit-unknown="); });
  CHECK(knob_drawn);
}

TEST_CASE("the data-plane and Scylla fault kinds are drawn only on bases with their hooks") {
  auto demo = load("scenarios/demo.yaml");
  auto dataplane = load("scenarios/fuzz/dataplane.yaml");
  auto fanout = load("scenarios/fuzz/fanout.yaml");
  std::map<std::string, int> on_demo, on_dataplane, on_fanout;
  for (std::uint64_t s = 1; s <= 60; ++s) {
    for (const auto& f : fuzz::draw_perturbation(demo, s).faults) ++on_demo[fuzz::fault_kind_name(f.kind)];
    for (const auto& f : fuzz::draw_perturbation(dataplane, s).faults) {
      ++on_dataplane[fuzz::fault_kind_name(f.kind)];
    }
    for (const auto& f : fuzz::draw_perturbation(fanout, s).faults) {
      ++on_fanout[fuzz::fault_kind_name(f.kind)];
      if (f.kind == fuzz::FaultKind::ScyllaDown) {
        CHECK(f.strength >= 1);
        CHECK(f.strength <= 3);  // at most RF nodes
      }
    }
  }
  // A Go process's hooks wherever a go-service runs, a memcached's only where one does (the
  // data plane's sidecar; the fan-out has none), the Scylla cluster's on both.
  for (const char* k : {"oom", "go-gc-pause", "log-stall", "fd-limit"}) {
    INFO(k);
    CHECK(on_demo[k] == 0);
    CHECK(on_fanout[k] > 0);
    CHECK(on_dataplane[k] > 0);
  }
  for (const char* k : {"memcached-restart", "memcached-slow", "syn-drop"}) {
    INFO(k);
    CHECK(on_demo[k] == 0);
    CHECK(on_fanout[k] == 0);
    CHECK(on_dataplane[k] > 0);
  }
  CHECK(on_demo["scylla-down"] == 0);
  CHECK(on_dataplane["scylla-down"] > 0);
  CHECK(on_fanout["scylla-down"] > 0);
}

namespace {

// Runs `base` with exactly one fault; the summary's metrics, summed by name (a histogram as
// NAME.p99, its largest over hosts).
std::map<std::string, double> run_with(const scenarios::Scenario& base, const fuzz::Fault& f,
                                       bool with_fault) {
  fuzz::Perturbation p;
  p.base_file = base.file;
  p.seed = 7;
  p.duration = base.duration;
  if (with_fault) p.faults.push_back(f);
  auto s = scenarios::load_scenario_text(fuzz::perturbed_yaml(base, p), "p.yaml",
                                         scenarios::builtin_registry());
  scenarios::ScenarioRun run(s, scenarios::builtin_registry());
  auto r = run.run();
  CHECK(r.invariants_hold());
  std::map<std::string, double> out;
  run.metrics().for_each([&](const sim::SeriesView& v) {
    if (v.gauge_fn) out[v.name] += (*v.gauge_fn)();
    if (v.histogram && v.histogram->count() > 0) {
      double& p99 = out[v.name + ".p99"];
      p99 = std::max(p99, static_cast<double>(v.histogram->quantile(0.99)));
    }
  });
  return out;
}

fuzz::Fault window(fuzz::FaultKind kind, const std::string& target, double strength) {
  fuzz::Fault f;
  f.kind = kind;
  f.target = target;
  f.strength = strength;
  f.at = 5 * sim::kSecond;
  f.length = 2 * sim::kSecond;
  return f;
}

}  // namespace

TEST_CASE("each data-plane fault does what it claims and nothing without it") {
  auto base = load("scenarios/fuzz/dataplane.yaml");
  const std::string host = "east/dataplane/0", cache = "east/cache/0";
  SECTION("oom: a memory limit under the baseline heap kills the process") {
    auto f = window(fuzz::FaultKind::OomKill, host, 256.0 * 1024 * 1024);  // full scale
    CHECK(run_with(base, f, false)["go.oom_kills"] == 0);
    auto m = run_with(base, f, true);
    CHECK(m["go.oom_kills"] >= 1);
    CHECK(m["go.threads"] > 0);  // the limit was restored and the process restarted
  }
  SECTION("memcached restart: refused dials and EOFs, then a fresh cache") {
    auto f = window(fuzz::FaultKind::MemcachedRestart, cache, 0);
    auto without = run_with(base, f, false);
    auto with = run_with(base, f, true);
    CHECK(without["memcached.restarts"] == 0);
    CHECK(with["memcached.restarts"] == 1);
    CHECK(with["client.dial_errors"] > without["client.dial_errors"]);  // refused
    CHECK(with["cache.misses"] > without["cache.misses"]);  // the items lost
  }
  SECTION("go gc pause: one stop-the-world as long as the window") {
    auto f = window(fuzz::FaultKind::GoGcPause, host, 0);
    CHECK(run_with(base, f, false)["go.forced_stws"] == 0);
    auto m = run_with(base, f, true);
    CHECK(m["go.forced_stws"] == 1);
    CHECK(m["go.stw_peak_ns"] >= 2e9);
  }
}

TEST_CASE("a Scylla node-down window degrades ops, and two down make some wait") {
  auto base = load("scenarios/fuzz/fanout.yaml");
  // The window at 1-3 s: inside the base's 5 s (window()'s default start, 5 s, is its end).
  auto early = [](fuzz::Fault f) {
    f.at = 1 * sim::kSecond;
    return f;
  };
  auto one = early(window(fuzz::FaultKind::ScyllaDown, "east.timelines", 1));
  auto without = run_with(base, one, false);
  CHECK(without["scylla.degraded"] == 0);
  CHECK(without["scylla.unavailable"] == 0);
  auto m1 = run_with(base, one, true);
  CHECK(m1["scylla.degraded"] > 0);
  CHECK(m1["scylla.unavailable"] == 0);  // RF 3, QUORUM: one node down never blocks
  CHECK(m1["scylla.down_nodes"] == 0);   // restored at the window's end
  auto two = early(window(fuzz::FaultKind::ScyllaDown, "east.timelines", 2));
  auto m2 = run_with(base, two, true);
  CHECK(m2["scylla.unavailable"] > 0);
}

TEST_CASE("on the 5 s fanout base a slow node and the bounded huge batch still hurt") {
  // The base was shortened for throughput (h-fuzzfan) and the huge batch bounded to 2-50 x its
  // source's rate: both must still have an effect there (docs/fuzzing.md, "h-fuzzfan").
  auto base = load("scenarios/fuzz/fanout.yaml");
  auto slow = window(fuzz::FaultKind::ScyllaSlow, "east/timelines/0", 20);
  slow.at = 1 * sim::kSecond;
  const double write_p99 = run_with(base, slow, false)["scylla.write_latency_ns.p99"];
  REQUIRE(write_p99 > 0);
  CHECK(run_with(base, slow, true)["scylla.write_latency_ns.p99"] > 3 * write_p99);
  // The top of the bound on the 1/s author: 50 posts/s for 3 s, past the fan-out path's
  // saturation (~20-30 posts/s): pages wait, the page P99 grows many times over.
  fuzz::Fault batch;
  batch.kind = fuzz::FaultKind::HugeBatch;
  batch.target = "author";
  batch.strength = 50;
  batch.size_bytes = 64 * 1024;
  batch.at = 1 * sim::kSecond;
  batch.length = 3 * sim::kSecond;
  const double page_p99 = run_with(base, batch, false)["fanout.page_duration_ns.p99"];
  REQUIRE(page_p99 > 0);
  const double overloaded = run_with(base, batch, true)["fanout.page_duration_ns.p99"];
  INFO("page P99 " << page_p99 << " ns without, " << overloaded << " ns with the batch");
  CHECK(overloaded > 10 * page_p99);
}

TEST_CASE("the new probes are expected only of bases with their hooks") {
  auto demo = fuzz::draw_perturbation(load("scenarios/demo.yaml"), 1);
  auto dataplane = fuzz::draw_perturbation(load("scenarios/fuzz/dataplane.yaml"), 1);
  auto fanout = fuzz::draw_perturbation(load("scenarios/fuzz/fanout.yaml"), 1);
  for (const auto& spec : fuzz::probe_specs()) {
    INFO(spec.name);
    // A Go process's probes on both (each runs a go-service), the memcached's on the data
    // plane only, the Scylla cluster's on both.
    bool go = spec.name == "oom kill" || spec.name == "go gc pause";
    bool mc = spec.name == "memcached restart";
    bool sc = spec.name == "scylla node down" || spec.name == "scylla unavailable";
    if (go || mc || sc) {
      CHECK_FALSE(fuzz::probe_applies(spec, demo));
      CHECK(fuzz::probe_applies(spec, dataplane));
      CHECK(fuzz::probe_applies(spec, fanout) == (go || sc));
    }
  }
}

TEST_CASE("a scylla service draws the Scylla fault kinds, aimed at its cluster") {
  // fuzz/fanout.yaml: the fan-out as parts, its cluster a scylla service.
  auto composed = load("scenarios/fuzz/fanout.yaml");
  std::map<std::string, int> drawn;
  for (std::uint64_t s = 1; s <= 60; ++s) {
    const auto p = fuzz::draw_perturbation(composed, s);
    for (const auto& f : p.faults) {
      ++drawn[fuzz::fault_kind_name(f.kind)];
      if (f.kind == fuzz::FaultKind::ScyllaDown) {
        CHECK(f.target == "east.timelines");
        CHECK(f.strength >= 1);
        CHECK(f.strength <= 3);  // at most RF nodes
      }
      CHECK(f.param != "down_nodes");  // a fault hook, never a parameter flip
    }
    if (s == 1) {
      for (const auto& spec : fuzz::probe_specs()) {
        if (spec.name == "scylla node down" || spec.name == "scylla unavailable") {
          CHECK(fuzz::probe_applies(spec, p));
        }
      }
    }
  }
  CHECK(drawn["scylla-down"] > 0);
  CHECK(drawn["scylla-slow"] > 0);
  // A node down for a while: ops served by fewer than RF replicas, and the cluster's books
  // consistent at every tick.
  fuzz::Fault down = window(fuzz::FaultKind::ScyllaDown, "east.timelines", 2);
  down.at = 1 * sim::kSecond;  // the base runs 5 s
  auto with = run_with(composed, down, true);
  auto without = run_with(composed, down, false);
  CHECK(without["scylla.degraded"] == 0);
  CHECK(with["scylla.degraded"] > 0);
}
