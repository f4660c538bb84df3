// The kubelet's CrashLoopBackOff (models/goruntime/restart_backoff.hpp) against its source:
// the sequence of waits for a container that keeps crashing, the cap, the 2 x max reset, and
// the GoProcess wiring (a crash waits the back-off; a deploy is a fresh key).
#include <catch2/catch.hpp>
#include <vector>

#include "models/goruntime/go_process.hpp"
#include "models/goruntime/restart_backoff.hpp"
#include "sim/simulation.hpp"

using namespace goruntime;
using sim::kSecond;

namespace {

RestartPolicy kubelet() {
  RestartPolicy p;
  p.kind = RestartPolicyKind::kCrashLoopBackOff;
  return p;  // 10 s, 300 s: kubelet's backOffPeriod and MaxContainerBackOff
}

}  // namespace

TEST_CASE("CrashLoopBackOff: at once, then 10, 20, 40, 80, 160, 300, 300 s for a container that keeps crashing") {
  CrashLoopBackOff b(kubelet());
  const sim::Duration up = 5 * kSecond;  // each run lasts 5 s
  std::vector<double> waits;
  sim::Time t = 0;
  for (int i = 0; i < 9; ++i) {
    const sim::Time finished = t + up;
    const sim::Time start = b.restart_at(finished);
    waits.push_back(sim::to_seconds(start - finished));
    t = start;
  }
  CHECK(waits == std::vector<double>{0, 10, 20, 40, 80, 160, 300, 300, 300});
}

TEST_CASE("CrashLoopBackOff resets once the container ran more than 2 x max since its last start") {
  CrashLoopBackOff b(kubelet());
  sim::Time t = 0;
  for (int i = 0; i < 4; ++i) {  // waits 0, 10, 20, 40: the next would be 80
    t = b.restart_at(t + kSecond);
  }
  CHECK(b.current() == 80 * kSecond);
  SECTION("ran 600 s: not more than 2 x max, the back-off keeps doubling") {
    CHECK(b.restart_at(t + 600 * kSecond) - (t + 600 * kSecond) == 80 * kSecond);
  }
  SECTION("ran 601 s: the entry expired, the restart is immediate and the next wait is 10 s") {
    const sim::Time finished = t + 601 * kSecond;
    CHECK(b.restart_at(finished) == finished);
    CHECK(b.restart_at(finished + kSecond) - (finished + kSecond) == 10 * kSecond);
  }
  SECTION("crashed at 590 s, but the 80 s wait ends past 600 s: housekeeping's GC drops the entry") {
    const sim::Time finished = t + 590 * kSecond;
    CHECK(b.restart_at(finished) - finished == 80 * kSecond);
    CHECK(b.current() == 10 * kSecond);  // Next() on a missing entry: the initial period
  }
}

TEST_CASE("restart policy settings are validated") {
  RestartPolicy p = kubelet();
  p.backoff_max = 5 * kSecond;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("restart_backoff_max"));
  p = kubelet();
  p.backoff_initial = 0;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("restart_backoff_initial"));
  CHECK_THROWS_WITH(parse_restart_policy("sometimes"), Catch::Contains("restart_policy"));
  CHECK(parse_restart_policy("crash_loop_backoff") == RestartPolicyKind::kCrashLoopBackOff);
}

TEST_CASE("a crashing Go process waits the kubelet's back-off; a deploy restarts at once, afresh") {
  sim::Simulation sim(1);
  GoConfig cfg;
  cfg.restart_policy = kubelet();
  cfg.restart_delay = 77 * kSecond;  // ignored under crash_loop_backoff
  GoProcess go(sim, cfg);
  std::vector<double> waits;
  sim::Time died = 0;
  go.on_crash([&](CrashReason, const std::string&) { died = sim.now(); });
  go.on_restart([&] { waits.push_back(sim::to_seconds(sim.now() - died)); });
  for (int i = 0; i < 4; ++i) {
    sim.run_until(sim.now() + 2 * kSecond);
    REQUIRE(go.alive());
    go.kill(CrashReason::kOomKill);
    sim.run_until(sim.now() + 400 * kSecond);  // longer than any wait
  }
  CHECK(waits == std::vector<double>{0, 10, 20, 40});
  go.kill(CrashReason::kDeploy);
  sim.run_until(sim.now() + kSecond);
  go.kill(CrashReason::kOomKill);
  sim.run_until(sim.now() + 400 * kSecond);
  CHECK(waits.back() == 0);  // the deploy was a new key: the first crash restarts at once
  CHECK(go.last_restart_delay() == 0);
}

TEST_CASE("restart_policy fixed keeps restart_delay after every crash") {
  sim::Simulation sim(1);
  GoConfig cfg;
  cfg.restart_delay = 30 * kSecond;
  GoProcess go(sim, cfg);
  for (int i = 0; i < 3; ++i) {
    go.kill(CrashReason::kOomKill);
    CHECK(go.last_restart_delay() == 30 * kSecond);
    sim.run_until(sim.now() + 31 * kSecond);
    REQUIRE(go.alive());
  }
}
