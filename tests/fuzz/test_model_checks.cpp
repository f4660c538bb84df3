// The model checks the runner evaluates at every tick: each is declared on its kind, holds on
// the fuzz bases, and can fail.
#include <catch2/catch.hpp>

#include <set>

#include "models/scylla/reactor.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

using namespace skysim;
using namespace skysim::scenarios;

namespace {

std::set<std::string> held_invariants(const std::string& file) {
  auto s = load_scenario_file(std::string(SKYSIM_SOURCE_DIR) + "/" + file, builtin_registry());
  s.invariants.clear();  // every invariant every host declares, as the fuzzer runs them
  ScenarioRun run(s, builtin_registry());
  auto r = run.run();
  std::set<std::string> out;
  for (const auto& inv : r.invariants) {
    INFO(inv.name << " @ " << inv.instance << ": " << inv.error);
    CHECK(inv.error.empty());
    out.insert(inv.name);
  }
  return out;
}

}  // namespace

TEST_CASE("the fuzz bases declare the model checks and hold them at every tick") {
  auto dataplane = held_invariants("scenarios/fuzz/dataplane.yaml");
  CHECK(dataplane.count("go.runtime"));
  CHECK(dataplane.count("memcached.pool"));
  CHECK(dataplane.count("sockets_consistent"));
  CHECK(dataplane.count("requests.answered"));
  auto fanout = held_invariants("scenarios/fuzz/fanout.yaml");
  CHECK(fanout.count("scylla.consistent"));
  CHECK(fanout.count("go-service.sockets"));
  CHECK(fanout.count("fanout.delivered-le-offered"));
  auto interning = held_invariants("scenarios/fuzz/interning.yaml");
  CHECK(interning.count("uid-interning.acks-unique"));
  CHECK(interning.count("uid-interning.unique-and-durable"));
  CHECK(interning.count("fdb.serializable"));
}

TEST_CASE("a Scylla shard's reactor conserves work at every instant, mid-task included") {
  scylla::ReactorConfig cfg;
  scylla::Reactor cpu(&cfg);
  std::uint64_t done = 0;
  auto count = [&](std::uint64_t, sim::Time) { ++done; };
  cpu.submit(100, scylla::Group::Statement, 20 * sim::kMicrosecond, 1);
  cpu.submit(100, scylla::Group::Compaction, 3 * sim::kMillisecond, 2);  // yields at each quota
  cpu.submit(100, scylla::Group::Statement, 20 * sim::kMicrosecond, 3);
  CHECK(std::string(cpu.conservation_error()).empty());
  cpu.run_until(100 + 700 * sim::kMicrosecond, count);  // paused inside the compaction
  CHECK(std::string(cpu.conservation_error()).empty());
  cpu.submit(cpu.now(), scylla::Group::Streaming, 50 * sim::kMicrosecond, 4);
  cpu.run_until(100 + 10 * sim::kMillisecond, count);
  CHECK(done == 4);
  CHECK(cpu.idle());
  CHECK(std::string(cpu.conservation_error()).empty());
  CHECK(cpu.ran(scylla::Group::Compaction) == 3 * sim::kMillisecond);
}
