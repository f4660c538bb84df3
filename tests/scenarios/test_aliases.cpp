// YAML anchors and aliases under overrides: a `--set`, a timeline `set:` or a host override on one
// path changes that path only, even when the block it lands in is shared through `&name`/`*name`
// with another datacenter; the resolved scenario writes no aliases; an error in a shared block
// points at the alias's use and at its anchor.
#include <catch2/catch.hpp>

#include "scenario_fixtures.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/yaml_aliases.hpp"

using namespace skysim::scenarios;
using namespace skysim::scenarios::testing;

namespace {

// Two datacenters whose web services share one parameter block and one host-override block.
const char* kShared = R"(name: shared
epoch: 2026-04-06T00:00:00Z
duration: 2m
datacenters:
  east:
    services:
      web:
        kind: queue-server
        hosts: 2
        params: &web
          workers: 4
          service_time: {exponential: {mean: 10ms}}
        host_overrides: &over
          1: {queue_capacity: 400}
  west:
    services:
      web:
        kind: queue-server
        hosts: 2
        params: *web
        host_overrides: *over
sources:
  east-readers:
    from: east
    target: east.web.serve
    rate: 600/s
  west-readers:
    from: west
    target: west.web.serve
    rate: 600/s
)";

Scenario load(const std::string& text, const std::vector<std::string>& sets = {}) {
  LoadOptions o;
  for (const auto& s : sets) o.overrides.push_back(parse_override(s));
  return load_scenario_text(text, "t.yaml", builtin_registry(), o);
}

double param(const Scenario& s, const std::string& dc, int host, const std::string& name) {
  return s.service(dc, "web")->host_params.at(static_cast<std::size_t>(host)).get(name).number;
}

std::map<std::string, std::uint64_t> dc_fingerprints(const Scenario& s) {
  ScenarioRun run(s, builtin_registry());
  RunResult r = run.run();
  return {r.datacenter_fingerprints.begin(), r.datacenter_fingerprints.end()};
}

const std::string kApril = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/april-2026-outage.yaml";
const std::string kWestDp = "datacenters.west.services.dataplane.program.";

// A 10-minute Monday-morning window of the real April file with the batch client running.
Scenario april_window(const std::vector<std::string>& extra) {
  LoadOptions o;
  for (const char* s :
       {"epoch=2026-04-06T08:00:00Z", "duration=10m", "timeline=[]",
        "sources.batch-service.start=2026-04-06T08:00:00Z", "sources.batch-service.rate=0.05/s"}) {
    o.overrides.push_back(parse_override(s));
  }
  for (const auto& s : extra) o.overrides.push_back(parse_override(s));
  return load_scenario_file(kApril, builtin_registry(), o);
}

}  // namespace

TEST_CASE("a --set into an anchored block changes the one path it names") {
  Scenario s = load(kShared, {"datacenters.west.services.web.params.workers=9"});
  CHECK(param(s, "west", 0, "workers") == 9);
  CHECK(param(s, "west", 1, "workers") == 9);
  CHECK(param(s, "east", 0, "workers") == 4);
  CHECK(param(s, "east", 1, "workers") == 4);
  // ... and the other way round: the anchor's own path does not reach the alias's users.
  Scenario t = load(kShared, {"datacenters.east.services.web.params.workers=2"});
  CHECK(param(t, "east", 0, "workers") == 2);
  CHECK(param(t, "west", 0, "workers") == 4);
}

TEST_CASE("a --set into an aliased host-override block changes one datacenter's host") {
  Scenario s = load(kShared, {"datacenters.west.services.web.host_overrides.1.queue_capacity=50"});
  CHECK(param(s, "west", 1, "queue_capacity") == 50);
  CHECK(param(s, "east", 1, "queue_capacity") == 400);
  CHECK(param(s, "east", 0, "queue_capacity") == param(s, "west", 0, "queue_capacity"));
}

TEST_CASE("the resolved scenario of an anchored file writes no aliases and loads back the same") {
  Scenario s = load(kShared, {"datacenters.west.services.web.params.workers=9"});
  std::string resolved = resolved_yaml(s);
  INFO(resolved);
  CHECK(resolved.find('*') == std::string::npos);
  CHECK(resolved.find('&') == std::string::npos);
  Scenario again = load(resolved);
  CHECK(param(again, "west", 0, "workers") == 9);
  CHECK(param(again, "east", 0, "workers") == 4);
  CHECK(param(again, "west", 1, "queue_capacity") == 400);
}

TEST_CASE("a change to one datacenter leaves the other's fingerprint alone") {
  auto base = dc_fingerprints(load(kShared));
  REQUIRE(base.size() == 2);
  SECTION("--set") {
    auto changed = dc_fingerprints(load(kShared, {"datacenters.west.services.web.params.workers=2"}));
    CHECK(changed.at("east") == base.at("east"));
    CHECK(changed.at("west") != base.at("west"));
  }
  SECTION("timeline set:") {
    std::string text = std::string(kShared) + R"(timeline:
  - at: +1m
    set:
      datacenters.west.services.web.params.workers: 2
)";
    auto changed = dc_fingerprints(load(text));
    CHECK(changed.at("east") == base.at("east"));
    CHECK(changed.at("west") != base.at("west"));
  }
  SECTION("host_overrides") {
    auto changed = dc_fingerprints(
        load(kShared, {"datacenters.west.services.web.host_overrides.0.workers=2"}));
    CHECK(changed.at("east") == base.at("east"));
    CHECK(changed.at("west") != base.at("west"));
  }
}

TEST_CASE("April: a west-only --set leaves the east's parameters and trajectory unchanged") {
  Scenario base = april_window({});
  Scenario west = april_window({kWestDp + "handlers.GetPostRecord.0.errgroup.limit=50"});
  auto limit = [](const Scenario& s, const std::string& dc) {
    return s.service(dc, "dataplane")->program->handlers.at("GetPostRecord").at(0).params.integer(
        "limit");
  };
  CHECK(limit(west, "west") == 50);
  CHECK(limit(west, "east") == -1);
  CHECK(limit(base, "west") == -1);

  auto b = dc_fingerprints(base);
  auto w = dc_fingerprints(west);
  // Had the limit reached the east too, its batch client's port storm would be gone.
  CHECK(w.at("east") == b.at("east"));
  // A west-only change the west does feel: its own idle pool.
  auto p = dc_fingerprints(april_window({kWestDp + "clients.mc.max_idle=5"}));
  CHECK(p.at("east") == b.at("east"));
  CHECK(p.at("west") != b.at("west"));
}

TEST_CASE("an error inside an aliased block points at the alias's use and its anchor") {
  std::string text = with("workers: 4", "workers: lots", kShared);
  std::string err = errors_of(text);
  INFO(err);
  // Once where the block is written (east) ...
  CHECK(err.find("t.yaml:11:20: datacenters.east.services.web.params.workers:") !=
        std::string::npos);
  // ... and once for the alias's use, at the same text, naming the use and the anchor.
  CHECK(err.find("t.yaml:11:20, in *web at t.yaml:20:17 (anchor &web at t.yaml:10:17): "
                 "datacenters.west.services.web.params.workers:") != std::string::npos);
}

TEST_CASE("an alias inside its own anchor and an exponential expansion are refused") {
  CHECK_THAT(errors_of("a: &x [1, *x]\n"),
             Catch::Contains("t.yaml:1:11: alias *x is used inside its own anchor"));
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    std::string prev(1, static_cast<char>(c - 1));
    laughs += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" +
              prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
              ", *" + prev + "]\n";
  }
  CHECK_THAT(errors_of(laughs), Catch::Contains("nodes once its aliases are written out"));
}

TEST_CASE("the alias index follows paths through nested aliases to where the text is") {
  const std::string text = "a: &a {k: 1}\nb: &b {p: *a, q: 2}\nc: *b\n";
  AliasIndex idx = AliasIndex::scan(text, 1000);
  REQUIRE(idx.uses().size() == 2);
  CHECK(idx.uses()[0].path == "b.p");
  CHECK(idx.uses()[1].path == "c");
  CHECK(idx.use_holding("c.p.k")->path == "c");
  CHECK(idx.use_holding("b.q") == nullptr);
  auto m = idx.mark_of("c.p.k");  // c -> b, b.p -> a: the 1 in line 1
  REQUIRE(m);
  CHECK(m->line == 0);
  CHECK(m->column == 10);
  YAML::Node doc = unshare_aliases(YAML::Load(text), idx);
  doc["c"]["p"]["k"] = 5;
  CHECK(doc["a"]["k"].as<int>() == 1);
  CHECK(doc["b"]["p"]["k"].as<int>() == 1);
  CHECK(doc["c"]["p"]["k"].as<int>() == 5);
}
