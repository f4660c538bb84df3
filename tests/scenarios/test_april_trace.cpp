// A trace of the 10-minute April window (the deliverable of docs/tracing.md): valid Chrome
// trace-event JSON, one process per host with nested slices (RPC > goroutine work > memcached
// > dial > syscall), the GC on a track of its own, counters for the key gauges, under 100 MB;
// tracing leaves the fingerprint alone; a cap drops events and says how many.
#include <catch2/catch.hpp>
#include <set>

#include "scenarios/loader.hpp"
#include "trace_run.hpp"

using namespace skysim::scenarios;
using testing::run_traced;
using testing::Traced;

namespace {

const std::string kApril = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/april-2026-outage.yaml";

Scenario april_window() {
  LoadOptions o;
  for (const char* s : {"epoch=2026-04-06T08:00:00Z", "duration=10m", "timeline=[]",
                        "sources.batch-service.start=2026-04-06T08:00:00Z",
                        "sources.batch-service.rate=0.05/s"}) {
    o.overrides.push_back(parse_override(s));
  }
  return load_scenario_file(kApril, builtin_registry(), o);
}

}  // namespace

TEST_CASE("april trace: 10 minutes open as nested slices per host, under 100 MB") {
  Scenario sc = april_window();
  std::uint64_t untraced = 0;
  {
    ScenarioRun run(sc, builtin_registry());
    untraced = run.run().fingerprint;
  }
  Traced t = run_traced(sc, sim::Tracer::Options{});
  const tracecheck::Report& r = t.report;
  INFO((r.errors.empty() ? std::string() : r.errors.front()));
  CHECK(r.error_count == 0);
  CHECK(t.fingerprint == untraced);  // tracing only observes
  CHECK(t.bytes < 100'000'000);
  CHECK(t.dropped == 0);

  // One process per host, named by its path, plus the run and the traffic sources.
  std::map<std::string, std::int64_t> pid_of;
  for (const auto& [pid, name] : r.process_names) pid_of[name] = pid;
  REQUIRE(pid_of.count("east/dataplane/0") == 1);
  REQUIRE(pid_of.count("west/dataplane/0") == 1);
  // The east host, where the ports run out, stacks rpc-or-goroutine > fetchPost > memcache.Get
  // > net.Dial > syscall: at least five deep.
  CHECK(r.max_depth.at(pid_of.at("east/dataplane/0")) >= 5);
  CHECK(r.max_depth.at(pid_of.at("west/dataplane/0")) >= 3);

  for (const char* name : {"goroutine", "GetPostRecord", "GetActorProfile", "fetchPost",
                           "memcache.Get", "memcache.Set", "net.Dial", "db.read", "log.Error",
                           "write(2)", "syscall (kernel CPU)", "Go code", "GC cycle", "mark",
                           "STW sweep termination", "STW mark termination"}) {
    INFO(name);
    CHECK(r.slices_by_name.count(name) == 1);
  }
  // Who is inside whom: the Go code's shape, not just any stack.
  auto only = [&](const std::string& child, const std::set<std::string>& allowed) {
    INFO(child);
    for (const auto& [parent, n] : r.parents.at(child)) {
      INFO(parent << " x" << n);
      CHECK(allowed.count(parent) == 1);
    }
  };
  only("fetchPost", {"goroutine"});
  only("GetPostRecord", {"goroutine"});
  only("memcache.Get", {"fetchPost"});
  only("net.Dial", {"memcache.Get", "memcache.Set"});
  only("log.Error", {"fetchPost"});
  only("write(2)", {"log.Error"});
  only("mark", {"GC cycle"});
  only("GC cycle", {""});
  only("goroutine", {""});
  CHECK(r.parents.at("syscall (kernel CPU)").count("net.Dial") == 1);
  for (const char* key : {"endpoint", "client", "uris", "key", "error", "ports_scanned"}) {
    INFO(key);
    CHECK(r.arg_keys.count(key) == 1);
  }
  for (const char* name : {"go.threads", "go.goroutines", "go.rss_bytes", "go.heap_live_bytes",
                           "net.time_wait"}) {
    INFO(name);
    CHECK(r.counters_by_name.count(name) == 1);
  }
  // Named thread tracks, bounded: a GC track and goroutine lanes on each host.
  std::size_t east_lanes = 0;
  bool east_gc = false;
  for (const auto& [track, name] : r.thread_names) {
    if (track.first != pid_of.at("east/dataplane/0")) continue;
    east_lanes += name.rfind("goroutine ", 0) == 0;
    east_gc = east_gc || name == "GC";
  }
  CHECK(east_gc);
  CHECK(east_lanes > 10);
  CHECK(east_lanes <= sim::Tracer::Options{}.max_lanes);
}

TEST_CASE("april trace: a cap drops events, says how many, and the file stays valid") {
  sim::Tracer::Options o;
  o.max_events = 20'000;
  Traced t = run_traced(april_window(), o);
  CHECK(t.dropped > 0);
  CHECK(t.report.error_count == 0);
  CHECK(t.report.other_data.at("dropped_events") == t.dropped);
  CHECK(t.report.other_data.at("recorded_events") == 20'000);
}

TEST_CASE("april trace: a window and a filter narrow the file") {
  sim::Tracer::Options o;
  o.from = 60 * sim::kSecond;
  o.until = 90 * sim::kSecond;
  o.host_prefixes = {"east/"};
  o.categories = {"rpc", "memcached"};
  Traced t = run_traced(april_window(), o);
  const auto& r = t.report;
  CHECK(r.error_count == 0);
  CHECK(r.slices_by_name.count("memcache.Get") == 1);
  CHECK(r.slices_by_name.count("net.Dial") == 0);
  CHECK(r.slices_by_name.count("goroutine") == 0);
  CHECK(r.counters_by_name.empty());
  for (const auto& [pid, name] : r.process_names) CHECK((pid == 1 || name.rfind("east/", 0) == 0));
}

TEST_CASE("april trace: --trace-filter terms are categories or host prefixes, else an error") {
  const std::vector<std::string> hosts = {"east/dataplane/0", "west/dataplane/0"};
  TraceSelection s = parse_trace_filter("rpc,gc,east/", hosts);
  CHECK(s.categories == std::set<std::string>{"rpc", "gc"});
  CHECK(s.host_prefixes == std::vector<std::string>{"east/"});
  CHECK(parse_trace_filter("fanout,west", hosts).categories == std::set<std::string>{"fanout"});
  CHECK(parse_trace_filter("fanout,west", hosts).host_prefixes == std::vector<std::string>{"west"});
  CHECK_THROWS_WITH(parse_trace_filter("rpc,,gc", hosts), Catch::Contains("empty term"));
  CHECK_THROWS_WITH(parse_trace_filter("north/", hosts),
                    Catch::Contains("'north/' is neither a category") &&
                        Catch::Contains("east/dataplane/0"));
}
