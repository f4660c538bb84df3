// Every fault kind the fuzzer has is a `faults:` entry a user can write: it loads into the same
// timeline a hand-written `set:` window gives (same run, same fingerprint), and each bad entry
// gets one located error.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "scenario_fixtures.hpp"
#include "scenarios/fault_kinds.hpp"
#include "scenarios/runner.hpp"

using namespace skysim;
using namespace skysim::scenarios;
using namespace skysim::scenarios::testing;

namespace {

std::string with_faults(const std::string& entries) {
  return std::string(kValidScenario) + "faults:\n" + entries;
}

std::uint64_t fingerprint_of(const std::string& text) {
  Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
  ScenarioRun run(s, builtin_registry());
  return run.run().fingerprint;
}

}  // namespace

TEST_CASE("a window fault is the set-then-restore timeline it stands for") {
  std::string as_fault = with_faults(
      "  - {type: delay-spike, at: +10s, duration: 5s, target: east/web/1, strength: 300ms}\n"
      "  - {type: clog, at: +20s, duration: 2s, target: east/web}\n"
      "  - {type: gc-pause, at: +30s, duration: 500ms, target: east/web/0}\n");
  std::string base = "datacenters.east.services.web.host_overrides.";
  std::string as_timeline = std::string(kValidScenario) + "timeline:\n" +
                            "  - {at: +10s, set: {" + base + "1.link_delay: 300ms}}\n" +
                            "  - {at: +15s, set: {" + base + "1.link_delay: 0s}}\n" +
                            "  - {at: +20s, set: {" + base + "0.link_clogged: true, " + base +
                            "1.link_clogged: true}}\n" +
                            "  - {at: +22s, set: {" + base + "0.link_clogged: false, " + base +
                            "1.link_clogged: false}}\n" +
                            "  - {at: +30s, set: {" + base + "0.paused: true}}\n" +
                            "  - {at: +30500ms, set: {" + base + "0.paused: false}}\n";
  REQUIRE(errors_of(as_fault) == "OK");
  REQUIRE(errors_of(as_timeline) == "OK");
  CHECK(fingerprint_of(as_fault) == fingerprint_of(as_timeline));
  CHECK(fingerprint_of(as_fault) != fingerprint_of(kValidScenario));  // the faults did something

  Scenario s = load_scenario_text(as_fault, "t.yaml", builtin_registry());
  REQUIRE(s.timeline.size() == 6);
  CHECK(s.timeline[0].at == 10 * sim::kSecond);
  CHECK(s.timeline[0].actions.at(0).target == "east/web/1");
  CHECK(s.timeline[0].actions.at(0).param == "link_delay");
  CHECK(s.timeline[1].at == 15 * sim::kSecond);
  CHECK(s.timeline[2].actions.size() == 2);  // both hosts of east/web
}

TEST_CASE("every fault kind is accepted where its hook exists") {
  // The kinds' own hooks: each entry loads on a base with that kind (the fuzz bases).
  for (const auto& k : fault_kinds()) {
    INFO(k.type);
    CHECK_FALSE(k.param.empty());
    CHECK(find_fault_kind(k.type) == &k);
    CHECK(fault_type_names().find(k.type) != std::string::npos);
  }
}

TEST_CASE("bad fault entries get one located error each") {
  struct Bad {
    const char* what;
    std::string entry;
    const char* expected;
  };
  std::vector<Bad> cases = {
      {"unknown kind", "  - {type: meteor, at: +5s, target: east/web}\n",
       "t.yaml:19:12: faults.0.type: unknown fault type 'meteor' (expected one of: crash, "
       "delay-spike, clog"},
      {"unknown target", "  - {type: clog, at: +5s, duration: 1s, target: east/nope}\n",
       "t.yaml:19:49: faults.0.target: no host or service 'east/nope'"},
      {"host index out of range", "  - {type: clog, at: +5s, duration: 1s, target: east/web/7}\n",
       "faults.0.target: no host 'east/web/7'"},
      {"a kind without that hook",
       "  - {type: scylla-down, at: +5s, duration: 1s, target: east/web, strength: 1}\n",
       "faults.0.target: 'east/web' is a queue-server service, which has no scylla-down fault "
       "(expected a host or service of kind scylla)"},
      {"negative strength",
       "  - {type: delay-spike, at: +5s, duration: 1s, target: east/web, strength: -20ms}\n",
       "t.yaml:19:76: faults.0.strength: strength must not be negative"},
      {"strength in the wrong unit",
       "  - {type: delay-spike, at: +5s, duration: 1s, target: east/web, strength: 20 apples}\n",
       "faults.0.strength:"},
      {"missing strength", "  - {type: delay-spike, at: +5s, duration: 1s, target: east/web}\n",
       "faults.0: delay-spike needs a strength"},
      {"strength on an on/off fault",
       "  - {type: clog, at: +5s, duration: 1s, target: east/web, strength: 50%}\n",
       "faults.0.strength: clog takes no strength"},
      {"outside the run", "  - {type: clog, at: +2m, duration: 1s, target: east/web}\n",
       "t.yaml:19:22: faults.0.at: is after the end of the run"},
      {"zero duration", "  - {type: clog, at: +5s, duration: 0s, target: east/web}\n",
       "faults.0.duration: fault duration out of range"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    std::string got = errors_of(with_faults(c.entry));
    INFO(got);
    CHECK(got.find(c.expected) != std::string::npos);
    CHECK(std::count(got.begin(), got.end(), '\n') <= 1);  // one error, not a cascade
  }
}

// ---- The fault kinds' mechanisms: each against the same seed without it ----------------------

namespace {

struct Ran {
  std::uint64_t fingerprint = 0;
  std::map<std::string, double> end;  // every counter and gauge by name, summed over labels
  std::vector<std::pair<sim::Time, double>> series;  // the column asked for, if any
  std::map<std::string, double> mean;  // every histogram's mean by key
};

Ran run_text(const std::string& text, const std::string& column = "") {
  Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
  ScenarioRun run(s, builtin_registry());
  Ran r;
  r.fingerprint = run.run().fingerprint;
  run.metrics().for_each([&](const sim::SeriesView& v) {
    if (v.type == sim::SeriesType::kHistogram) {
      r.mean[v.key] = v.histogram->mean();
      return;
    }
    r.end[v.name] += run.metrics().value(v.key);
  });
  if (!column.empty()) r.series = run.sampler().column(column);
  return r;
}

double at_end(const Ran& r, const std::string& name) {
  auto it = r.end.find(name);
  return it == r.end.end() ? 0.0 : it->second;
}

// A fuzz base's text (scenarios/fuzz/NAME.yaml), to append `faults:` to.
std::string fuzz_base(const std::string& name) {
  std::ifstream in(std::string(SKYSIM_SOURCE_DIR) + "/scenarios/fuzz/" + name + ".yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  REQUIRE(!ss.str().empty());
  return ss.str();
}
std::string dataplane_base() { return fuzz_base("dataplane"); }

// The data-plane base with a 100 ms restart of its memcached at +5 s (every connection redials
// after it) and `extra` fault entries.
Ran redial_run(const std::string& extra = "") {
  return run_text(dataplane_base() + "faults:\n" +
                  "  - {type: memcached-restart, at: +5s, duration: 100ms, target: "
                  "east/cache/0}\n" + extra);
}

}  // namespace

TEST_CASE("partition: segments sent into it arrive at the first retransmission after the heal") {
  std::string text = with_faults(
      "  - {type: partition, at: +10s, duration: 3s, target: east/web/0}\n");
  REQUIRE(errors_of(text) == "OK");
  Ran base = run_text(kValidScenario);
  Ran cut = run_text(text, "queue.link_in_transit{host=east/web/0}");
  CHECK(base.end.count("queue.link_retransmits") == 0);  // no new series without the fault
  CHECK(at_end(cut, "queue.link_retransmits") > 100);    // ~150 sent into 3 s, most resent
  CHECK(at_end(cut, "queue.link_resets") == 0);          // 3 s is far inside tcp_retries2
  // Held on the link during the cut (sampled each second), none left a second after the heal
  // plus the longest RTO a 3 s cut gives (1.6 s).
  double held = 0, left = 0;
  for (auto [t, v] : cut.series) {
    if (t > 11 * sim::kSecond && t <= 13 * sim::kSecond) held = std::max(held, v);
    if (t >= 15 * sim::kSecond) left = std::max(left, v);
  }
  CHECK(held > 50);
  CHECK(left == 0);
  // Nothing is lost: every request was served or is still in service.
  CHECK(at_end(cut, "queue.dropped") == 0);
  CHECK(at_end(cut, "queue.served") >= at_end(cut, "queue.arrivals") - 20);
}

TEST_CASE("partition: a cut longer than tcp_retries2 allows resets the connection (ETIMEDOUT)") {
  std::string text = with("duration: 1m", "duration: 30m",
                          with("rate: 100/s", "rate: 1/s")) +
                     "faults:\n  - {type: partition, at: +1m, duration: 20m, target: east/web}\n";
  REQUIRE(errors_of(text) == "OK");
  Ran cut = run_text(text);
  // 15 retransmissions (0.2 s doubling, 120 s cap) take 924.6 s: sent in the first ~5 min of
  // the cut, a segment is reset before it heals.
  CHECK(at_end(cut, "queue.link_resets") > 100);
  CHECK(at_end(cut, "queue.dropped") == at_end(cut, "queue.link_resets"));
}

TEST_CASE("packet loss: each segment lost with the given probability is retransmitted") {
  std::string text = with_faults(
      "  - {type: packet-loss, at: +10s, duration: 20s, target: east/web, strength: 20%}\n");
  REQUIRE(errors_of(text) == "OK");
  Ran lossy = run_text(text);
  // ~2,000 segments sent in the window (Poisson, 100/s for 20 s), each lost a geometric
  // number of times: mean p / (1 - p) = 0.25, variance p / (1 - p)^2 = 0.3125 per segment.
  double sent = 2000, p = 0.2, expected = sent * p / (1 - p);
  double sd = std::sqrt(sent * (p / ((1 - p) * (1 - p)) + (p / (1 - p)) * (p / (1 - p))));
  INFO("retransmits " << at_end(lossy, "queue.link_retransmits") << ", expected " << expected);
  CHECK(at_end(lossy, "queue.link_retransmits") > expected - 5 * sd);
  CHECK(at_end(lossy, "queue.link_retransmits") < expected + 5 * sd);
  CHECK(at_end(lossy, "queue.dropped") == 0);
  CHECK(lossy.fingerprint != fingerprint_of(kValidScenario));
  // A strength of 0 % never starts the link's loss machinery: the run is the one whose window
  // changes nothing else either (a 0 ms delay spike at the same times: the same two timeline
  // events, no link, no draw).
  CHECK(fingerprint_of(with_faults("  - {type: packet-loss, at: +10s, duration: 20s, target: "
                                   "east/web, strength: 0%}\n")) ==
        fingerprint_of(with_faults("  - {type: delay-spike, at: +10s, duration: 20s, target: "
                                   "east/web, strength: 0ms}\n")));
}

TEST_CASE("memcached-slow and syn-drop act on the data plane's memcached sidecar") {
  std::string base = dataplane_base();
  Ran plain = run_text(base);
  // Slower than gomemcache's 500 ms Timeout: every get in the window times out.
  Ran slow = run_text(base + "faults:\n  - {type: memcached-slow, at: +5s, duration: 5s, "
                             "target: east/cache/0, strength: 600ms}\n");
  INFO("cache errors: plain " << at_end(plain, "call.errors") << ", slow "
                              << at_end(slow, "call.errors"));
  CHECK(at_end(slow, "call.errors") > at_end(plain, "call.errors") + 100);
  // A restart makes every connection redial; with every SYN lost the dials time out.
  Ran restarted = redial_run();
  Ran dropped = redial_run("  - {type: syn-drop, at: +5s, duration: 3s, target: "
                           "east/cache/0, strength: 100%}\n");
  CHECK(plain.end.count("memcached.syns_lost") == 0);
  CHECK(at_end(dropped, "memcached.syns_lost") > 0);
  INFO("cache errors: restarted " << at_end(restarted, "call.errors") << ", with "
                                  << "SYNs dropped " << at_end(dropped, "call.errors"));
  CHECK(at_end(dropped, "call.errors") > at_end(restarted, "call.errors"));
}

TEST_CASE("scylla-slow: reads through the slow node take longer, and so do the RPCs") {
  std::string base = dataplane_base();
  // The backfill client's URIs are cold (cache misses, no error, no log line): each is a
  // Scylla read, 200-1000 per RPC under SetLimit(50), so an RPC waits for many reads, those
  // that node 0's shards serve needing 50 x their CPU.
  Ran fast = run_text(base);
  Ran slow = run_text(base + "faults:\n  - {type: scylla-slow, at: +2s, duration: 16s, "
                             "target: east/timeline/0, strength: 50}\n");
  CHECK(slow.fingerprint != fast.fingerprint);
  const std::string batch = "requests.latency_ns{client=batch-service,endpoint=GetPostRecord}";
  REQUIRE(fast.mean.count(batch) == 1);
  INFO("backfill mean latency " << fast.mean[batch] / 1e6 << " ms -> " << slow.mean[batch] / 1e6
                                << " ms");
  CHECK(slow.mean[batch] > 1.5 * fast.mean[batch]);
  const std::string reads = "scylla.read_latency_ns{host=east/timeline/0}";
  REQUIRE(fast.mean.count(reads) == 1);
  CHECK(slow.mean[reads] > 1.5 * fast.mean[reads]);
}

TEST_CASE("log-stall: blocked writers accumulate while the collector stalls and drain after") {
  // Errors to log: memcached down from +3 s to +13 s (dials refused, no TIME_WAIT: a get and a
  // set error per URI), the users at an eighth of their rate and no backfill, so the lines
  // (~125/s x 330 B) stay below the 100 KB/s the collector reads at scale 0.05 and, without a
  // stall, the pipe keeps up.
  std::string base =
      with("interval: 1s", "interval: 100ms",
           with("rate: 1/s", "rate: 0.001/s", with("rate: 400/s", "rate: 50/s", dataplane_base())));
  std::string errors =
      "  - {type: memcached-restart, at: +3s, duration: 10s, target: east/cache/0}\n";
  std::string col = "log.writers_waiting{host=east/dataplane/0}";
  Ran flowing = run_text(base + "faults:\n" + errors, col);
  Ran stalled = run_text(base + "faults:\n" + errors +
                             "  - {type: log-stall, at: +4s, duration: 4s, target: "
                             "east/dataplane/0}\n",
                         col);
  auto peak = [](const Ran& r, sim::Time from, sim::Time to) {
    double m = 0;
    for (auto [t, v] : r.series) {
      if (t > from && t <= to) m = std::max(m, v);
    }
    return m;
  };
  const double during = peak(stalled, 5 * sim::kSecond, 8 * sim::kSecond);
  const double unstalled = peak(flowing, 5 * sim::kSecond, 8 * sim::kSecond);
  const double at_end_stalled = peak(stalled, 17 * sim::kSecond, 21 * sim::kSecond);
  INFO("writers waiting in the stall: " << during << " (no stall: " << unstalled
                                        << "), at the end " << at_end_stalled);
  CHECK(during > unstalled + 100);  // ~4 s of lines, less the 64 KiB the pipe took
  CHECK(at_end_stalled == 0);       // drained after
  // Not all at once: the collector reads 100 KB/s at scale 0.05, ~300 lines a second, while
  // ~125 a second still arrive, so the backlog takes a second or more to drain.
  const double just_after = peak(stalled, 8 * sim::kSecond, 8 * sim::kSecond + 200 * sim::kMillisecond);
  const double later = peak(stalled, 9500 * sim::kMillisecond, 10 * sim::kSecond);
  INFO("waiting 0-200 ms after the stall: " << just_after << ", 1.5-2 s after: " << later);
  CHECK(just_after > 0);
  CHECK(later < during / 2);
  CHECK(stalled.fingerprint != flowing.fingerprint);
}

TEST_CASE("the new kinds' strengths are checked where they are written") {
  struct Bad {
    const char* what;
    std::string entry;
    const char* expected;
  };
  std::vector<Bad> cases = {
      {"loss above 100 %",
       "  - {type: packet-loss, at: +5s, duration: 1s, target: east/web, strength: 150%}\n",
       "t.yaml:19:76: faults.0.strength:"},
      {"negative loss",
       "  - {type: packet-loss, at: +5s, duration: 1s, target: east/web, strength: -5%}\n",
       "faults.0.strength: strength must not be negative"},
      {"partition takes no strength",
       "  - {type: partition, at: +5s, duration: 1s, target: east/web, strength: 1}\n",
       "faults.0.strength: partition takes no strength"},
      {"a data-plane fault on a queue server",
       "  - {type: memcached-slow, at: +5s, duration: 1s, target: east/web, strength: 1ms}\n",
       "which has no memcached-slow fault (expected a host or service of kind memcached)"},
      {"a queue-server fault needs its host to exist",
       "  - {type: partition, at: +5s, duration: 1s, target: west/web}\n",
       "faults.0.target:"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    std::string got = errors_of(with_faults(c.entry));
    INFO(got);
    CHECK(got.find(c.expected) != std::string::npos);
    CHECK(std::count(got.begin(), got.end(), '\n') <= 1);
  }
}

TEST_CASE("fd-limit: dials beyond the process's open-file limit fail with EMFILE") {
  // A memcached restart makes every connection redial, here against a limit of 10 descriptors
  // at scale 0.05 (200 at full scale): the baseline 7 and the gocql pool's connections are
  // above it.
  Ran restarted = redial_run();
  Ran limited = redial_run("  - {type: fd-limit, at: +4s, duration: 4s, target: "
                           "east/dataplane/0, strength: 200}\n");
  CHECK(restarted.end.count("net.emfile") == 0);
  INFO("EMFILE " << at_end(limited, "net.emfile") << "; cache errors "
                 << at_end(restarted, "call.errors") << " -> " << at_end(limited, "call.errors"));
  CHECK(at_end(limited, "net.emfile") > 0);
  CHECK(at_end(limited, "call.errors") > at_end(restarted, "call.errors"));
  CHECK(errors_of(with_faults("  - {type: fd-limit, at: +5s, duration: 1s, target: east/web, "
                              "strength: 100}\n"))
            .find("which has no fd-limit fault") != std::string::npos);
}

TEST_CASE("scylla-slow on the fan-out: node 0's shards queue, so writes and reads answer later") {
  // A scylla service under the fan-out as parts (the fanout kind's own cluster, until 7a68e53,
  // went from 0.63 to 5.66 ms; this one from 0.62 to 7.88 ms).
  {
    const std::string base = fuzz_base("fanout");
    Ran plain = run_text(base);
    Ran slow = run_text(base + "faults:\n  - {type: scylla-slow, at: +1s, duration: 8s, target: "
                               "east/timelines/0, strength: 20}\n");
    CHECK(slow.fingerprint != plain.fingerprint);
    const std::string reads = "requests.latency_ns{client=app-readers,endpoint=read}";
    REQUIRE(plain.mean.count(reads) == 1);
    INFO("readers' mean latency " << plain.mean[reads] / 1e6 << " ms -> "
                                  << slow.mean[reads] / 1e6 << " ms");
    CHECK(slow.mean[reads] > 1.2 * plain.mean[reads]);
  }
}

TEST_CASE("a fault with enabled: false is checked, then leaves the run as without it") {
  const std::string crash = "  - {type: crash, at: +10s, duration: 5s, target: east/web/1";
  const std::string window = "  - {type: delay-spike, at: +20s, duration: 5s, target: east/web/0, "
                             "strength: 300ms";
  const std::string off = with_faults(crash + ", enabled: false}\n" + window + ", enabled: no}\n");
  const std::string on = with_faults(crash + "}\n" + window + ", enabled: true}\n");
  REQUIRE(errors_of(off) == "OK");
  REQUIRE(errors_of(on) == "OK");
  CHECK(fingerprint_of(off) == fingerprint_of(kValidScenario));
  CHECK(fingerprint_of(on) != fingerprint_of(kValidScenario));
  // A disabled fault is still a fault: its errors are reported.
  CHECK_THAT(errors_of(with_faults("  - {type: crash, at: +10s, target: east/nowhere, enabled: false}\n")),
             Catch::Contains("faults.0.target"));
  CHECK_THAT(errors_of(with_faults(crash + ", enabled: maybe}\n")),
             Catch::Contains("faults.0.enabled"));
}
