// `scale` on composed services (scenarios/param_scaling.hpp): a scenario writes full-size values
// and the models get scale x the host's amounts (cores, memory, pools, key spaces, the port
// range's length) and 1/scale x the per-port search cost, as the dataplane kind does for its
// own. Checked by the strongest statement there is: a run at scale 0.5 is event for event the
// run at scale 1 of the same scenario with those values halved by hand (and the sources' rates,
// which `scale` always shrank).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "scenarios/param_scaling.hpp"
#include "scenarios/explain.hpp"
#include "scenarios/loader.hpp"
#include "sim/report_panel.hpp"
#include "scenarios/param_builder.hpp"
#include "scenario_fixtures.hpp"

using namespace skysim::scenarios;
using skysim::scenarios::testing::errors_of;
using skysim::scenarios::testing::run_scenario_text;
using Ran = skysim::scenarios::testing::TextRun;

namespace {

std::string fill(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) {
    const std::string token = "$" + key + "$";
    for (auto at = text.find(token); at != std::string::npos; at = text.find(token, at)) {
      text.replace(at, token.size(), value);
      at += value.size();
    }
  }
  return text;
}

// A batch storm through a gomemcache pool from a fixed source address (the April data plane in
// miniature): the range's TIME_WAIT, the pool, the cores, the memory limit and the log pipe all
// shape the run. At +40 s the range is widened (`sysctl -w`), at +80 s the container limit
// lowered under the storm's RSS but above a fresh process's, at +100 s a build with a larger
// pool deployed.
const char* kOwnHost = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 2m
scale: $SCALE$
datacenters:
  east:
    services:
      cache:
        kind: memcached
        params: {listen: loopback, capacity_items: $CAP$}
      api:
        kind: go-service
        params:
          cores: $CORES$
          gomemlimit: $GML$
          memory_limit: $MEM$
          baseline_live_heap: $HEAP$
          log_drain: $DRAIN$
          port_range_low: 32768
          port_range_high: $HI$
          port_scan_cost: $SCAN$
        program:
          clients:
            mc: {target: cache, local: true, driver: gomemcache, max_idle: $IDLE$, dialer: fixed_source, source_ip: 127.32.0.1}
          handlers:
            get:
              - errgroup:
                  tasks_from: request_size
                  limit: -1
                  do:
                    - alloc: {bytes: 64KiB}
                    - cache_get:
                        client: mc
                        keys: $KEYS$
                        on_error: log_and_miss
                        on_miss:
                          - cpu: {time: {constant: 20us}}
sources:
  batch:
    from: east
    target: api.get
    rate: $RATE$
    request_size: {uniform: [300, 600]}
timeline:
  - at: 2026-04-06T00:00:40Z
    set:
      datacenters.east.services.api.params.port_range_high: $HI2$
  - at: 2026-04-06T00:01:20Z
    set:
      datacenters.east.services.api.params.memory_limit: $MEM2$
  - at: 2026-04-06T00:01:40Z
    set:
      datacenters.east.services.api.program.clients.mc.max_idle: $IDLE2$
)";

const std::map<std::string, std::string> kFullSize = {
    {"CAP", "2000"},      {"CORES", "8"},      {"GML", "1GiB"},   {"MEM", "2GiB"},
    {"HEAP", "256MiB"},   {"DRAIN", "2MB"},    {"HI", "34767"},   {"SCAN", "134ns"},
    {"IDLE", "40"},       {"KEYS", "100000"},  {"RATE", "2/s"},   {"HI2", "36767"},
    {"MEM2", "512MiB"},   {"IDLE2", "200"}};
// The same host halved by hand: 2,000 ports from 32768 are 1,000 (to 33767), a search of them
// costs twice as much per port, and every amount is half.
const std::map<std::string, std::string> kHalvedByHand = {
    {"CAP", "1000"},      {"CORES", "4"},      {"GML", "512MiB"}, {"MEM", "1GiB"},
    {"HEAP", "128MiB"},   {"DRAIN", "1MB"},    {"HI", "33767"},   {"SCAN", "268ns"},
    {"IDLE", "20"},       {"KEYS", "50000"},   {"RATE", "1/s"},   {"HI2", "34767"},
    {"MEM2", "256MiB"},   {"IDLE2", "100"}};

// Two go-services on one machine whose cores, memory and eviction threshold scale; the grower
// holds GROW per request for a minute, slowly enough that the kubelet evicts it before the
// kernel's OOM killer acts.
const char* kMachine = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 90s
scale: $SCALE$
datacenters:
  east:
    machines:
      node:
        params: {cores: $MCORES$, memory: $MMEM$, eviction_memory_available: $EVICT$}
    services:
      grower:
        kind: go-service
        machine: node
        params: {baseline_live_heap: $HEAP$}
        program:
          handlers:
            get:
              - alloc: {bytes: $GROW$}
              - sleep: {time: {constant: 60s}}
      steady:
        kind: go-service
        machine: node
        params: {baseline_live_heap: $HEAP$}
        program:
          handlers:
            get:
              - cpu: {time: {constant: 5ms}}
sources:
  grow:
    from: east
    target: grower.get
    rate: $RATE$
  work:
    from: east
    target: steady.get
    rate: $RATE$
)";

}  // namespace

TEST_CASE("scale: a value reaches the model as its ParamSpec says") {
  sim::ParamSpec cores = extensive(param("cores", sim::ParamType::Count, "", "4", "", 1, 4096));
  sim::ParamSpec scan =
      per_scaled_unit(param("port_scan_cost", sim::ParamType::Duration, "", "134ns", ""));
  sim::ParamSpec limit = extensive(param("memory_limit", sim::ParamType::Size, "", "0", ""));
  sim::ParamSpec plain = param("time_wait", sim::ParamType::Duration, "", "60s", "");
  auto of = [](sim::ParamType t, std::int64_t n) {
    sim::ParamValue v;
    v.type = t;
    v.integer = n;
    v.number = static_cast<double>(n);
    v.text = std::to_string(n);
    return v;
  };
  CHECK(scaled_value(cores, of(sim::ParamType::Count, 128), 0.05).integer == 6);  // round(6.4)
  CHECK(scaled_value(cores, of(sim::ParamType::Count, 4), 0.05).integer == 1);    // at least 1
  CHECK(scaled_value(limit, of(sim::ParamType::Size, 0), 0.05).integer == 0);     // 0 = none
  CHECK(scaled_value(limit, of(sim::ParamType::Size, 3670016000), 0.05).integer == 183500800);
  CHECK(scaled_value(scan, of(sim::ParamType::Duration, 134), 0.05).integer == 2680);
  CHECK(scaled_value(plain, of(sim::ParamType::Duration, 60'000'000'000), 0.05).integer ==
        60'000'000'000);
  // The written text is the scenario's (full size); only the numbers change.
  CHECK(scaled_value(cores, of(sim::ParamType::Count, 128), 0.05).text == "128");
}

TEST_CASE("scale: a composition at 0.5 is the one at 1 with its amounts halved by hand") {
  SECTION("a go-service on its own host, a memcached sidecar, timeline sets") {
    Ran scaled = run_scenario_text(fill(fill(kOwnHost, kFullSize), {{"SCALE", "0.5"}}));
    Ran by_hand = run_scenario_text(fill(fill(kOwnHost, kHalvedByHand), {{"SCALE", "1"}}));
    Ran unscaled = run_scenario_text(fill(fill(kOwnHost, kFullSize), {{"SCALE", "1"}}));
    REQUIRE(scaled.result.invariants_hold());
    // The storm ran out of the range, and the lowered limit killed the process: the values
    // scaled are the ones the run turns on (each one, halved by hand or not, moves the
    // fingerprint: checked by mutation when this test was written).
    const std::string host = "{host=east/api/0}";
    CHECK(by_hand.value("log.lines" + host) > 1000);
    CHECK(by_hand.value("go.oom_kills" + host) >= 1);
    CHECK(scaled.result.events == by_hand.result.events);
    CHECK(scaled.result.fingerprint == by_hand.result.fingerprint);
    CHECK(scaled.value("log.lines" + host) == by_hand.value("log.lines" + host));
    CHECK(unscaled.result.fingerprint != by_hand.result.fingerprint);
  }
  SECTION("go-services on a machine: its cores, memory and the kubelet's threshold") {
    const std::map<std::string, std::string> full = {{"MCORES", "8"}, {"MMEM", "2GiB"},
                                                     {"EVICT", "200MiB"}, {"HEAP", "600MiB"},
                                                     {"GROW", "256KiB"}, {"RATE", "40/s"}};
    const std::map<std::string, std::string> halved = {{"MCORES", "4"}, {"MMEM", "1GiB"},
                                                       {"EVICT", "100MiB"}, {"HEAP", "300MiB"},
                                                       {"GROW", "256KiB"}, {"RATE", "20/s"}};
    Ran scaled = run_scenario_text(fill(fill(kMachine, full), {{"SCALE", "0.5"}}));
    Ran by_hand = run_scenario_text(fill(fill(kMachine, halved), {{"SCALE", "1"}}));
    REQUIRE(by_hand.result.invariants_hold());
    CHECK(by_hand.value("machine.evictions{machine=east/node/0}") >= 1);
    CHECK(scaled.result.fingerprint == by_hand.result.fingerprint);
  }
}

TEST_CASE("scale: explain marks what scales") {
  const std::string text = explain_kind(*builtin_registry().find("go-service"), false);
  CHECK(text.find("GOMAXPROCS; 0 = cores (Go's default) [x scale]") != std::string::npos);
  CHECK(text.find("[/ scale]") != std::string::npos);  // port_scan_cost
  CHECK(explain_machine(false).find("[x scale]") != std::string::npos);
}

TEST_CASE("scale: a go-service's report panels draw the limits its hosts were built with") {
  // The April file at the replay's size: the limits a report draws are the scaled host's.
  LoadOptions o;
  o.overrides.push_back(parse_override("scale=0.05"));
  Scenario s = load_scenario_file(
      std::string(SKYSIM_SOURCE_DIR) + "/scenarios/april-2026-outage.yaml", builtin_registry(), o);
  const ServiceKind& kind = *builtin_registry().find("go-service");
  std::vector<HostContext> hosts;
  for (const auto& svc : s.datacenters.at(0).services) {
    if (svc.kind != "go-service") continue;
    hosts.push_back({"east", svc.name, svc.kind, 0, 1, s.scale,
                     scaled_values(kind.params, svc.host_params.at(0), s.scale), nullptr, ""});
  }
  REQUIRE(hosts.size() == 1);
  std::map<std::string, std::vector<sim::PanelLimit>> limits;
  for (const sim::ReportPanel& p : kind.report_panels(hosts)) limits[p.series.at(0)] = p.limits;
  REQUIRE(limits["go.threads"].size() == 1);
  CHECK(limits["go.threads"][0].value == 10000);          // Go's limit: not scaled
  REQUIRE(limits["net.time_wait"].size() == 1);
  CHECK(limits["net.time_wait"][0].value == 1412);        // 28,232 ports x 0.05
  REQUIRE(limits["go.rss_bytes"].size() == 2);
  CHECK(limits["go.rss_bytes"][0].label == "GOMEMLIMIT");
  CHECK(limits["go.rss_bytes"][0].value == Approx(3.0 * (1 << 30) * 0.05).margin(1));  // to the byte
  CHECK(limits["go.rss_bytes"][1].value == Approx(3500.0 * (1 << 20) * 0.05).margin(1));
  // Without a scale the full host's.
  hosts[0].params = s.datacenters.at(0).services.at(2).host_params.at(0);
  hosts[0].scale = 1;
  for (const sim::ReportPanel& p : kind.report_panels(hosts)) limits[p.series.at(0)] = p.limits;
  CHECK(limits["net.time_wait"][0].value == 28232);
}

TEST_CASE("scale: a machine scaled under a Scylla node's pinned shards is one located error") {
  const std::string text = R"(name: t
epoch: 2026-04-06T00:00:00Z
duration: 1m
scale: $SCALE$
datacenters:
  east:
    machines:
      node:
        params: {cores: 4}
    services:
      db:
        kind: scylla
        machine: node
        params: {nodes: 1, shards_per_node: 3, replication_factor: 1, consistency: ONE, partitions: 1k}
      api:
        kind: go-service
        machine: node
        program:
          handlers:
            get:
              - cpu: {time: {constant: 1ms}}
sources:
  gets: {from: east, target: api.get, rate: 50/s}
)";
  CHECK(errors_of(fill(text, {{"SCALE", "1"}})) == "OK");
  // 4 cores at 0.5 are 2; the node's 3 shards are not scaled. Before the check the run died
  // building the world, and `skysim validate` said ok.
  const std::string e = errors_of(fill(text, {{"SCALE", "0.5"}}));
  CHECK_THAT(e, Catch::Contains("t.yaml:14:"));
  CHECK_THAT(e, Catch::Contains("a node pins 3 shards on machine 'node' of 2 cores (its cores "
                                "at scale 0.5)"));
}
