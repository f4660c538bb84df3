// The model checks the runner evaluates at every tick: each is declared on its kind, holds on
// the fuzz bases, and can fail.
#include <catch2/catch.hpp>

#include <set>

#include "models/scylla/shard_queue.hpp"
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
  auto interning = held_invariants("scenarios/fuzz/interning.yaml");
  CHECK(interning.count("uid-interning.acks-unique"));
  CHECK(interning.count("uid-interning.unique-and-durable"));
}

TEST_CASE("a Scylla shard's queue conserves work, and says so when it does not") {
  scylla::ShardQueue q;
  CHECK(q.admit(100, 50) == 150);
  CHECK(q.admit(120, 10) == 160);  // waited behind the first
  CHECK(q.admit(500, 5) == 505);   // idle 160..500
  CHECK(std::string(q.conservation_error()).empty());
  q.admit(400, 5);  // earlier than the arrival before it: Lindley's recursion no longer holds
  CHECK_FALSE(std::string(q.conservation_error()).empty());
}
