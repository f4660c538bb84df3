// ProcessHandle::kill(): a waiting process's frames destroyed innermost first instead of a
// sim::Cancelled unwound through every nested Task. The destructors that run, their order,
// the event that ends the process and the frames freed must be those of cancel().
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/on_unwind.hpp"
#include "sim/process.hpp"
#include "sim/sync.hpp"

using namespace sim;

namespace {

using Log = std::vector<std::string>;

// Logs its destruction: what a pooled connection or a held token does in its destructor.
struct Held {
  Log* log;
  std::string name;
  Held(Log& l, std::string n) : log(&l), name(std::move(n)) {}
  Held(const Held&) = delete;
  ~Held() { log->push_back("~" + name); }
};

Task<> leaf(Simulation& sim, Log& log, Semaphore& sem) {
  Held a(log, "leaf.a");
  sim::OnUnwind give_back(sim, [&] {
    log.push_back("leaf gives back");
    sem.release();
  });
  Held b(log, "leaf.b");
  co_await sim::sleep(kSecond);
  give_back.dismiss();
  sem.release();
  log.push_back("leaf done");
}

Task<int> middle(Simulation& sim, Log& log, Semaphore& sem) {
  Held m(log, "middle");
  co_await leaf(sim, log, sem);
  co_return 1;
}

Process outer(Simulation& sim, Log& log, Semaphore& sem) {
  co_await sem.acquire();
  Held o(log, "outer.before");
  int v = co_await middle(sim, log, sem);
  Held after(log, "outer.after");  // never constructed: the process dies in middle()
  log.push_back("outer got " + std::to_string(v));
}

// Runs outer() twice at once (the second waits for the semaphore), ends the first at 10 ns
// with cancel or kill, and returns the log (the second's "leaf done" shows it got the unit).
Log run_one(bool kill, std::uint64_t& fingerprint, Simulation::Stats& stats) {
  Simulation sim(7);
  Log log;
  Semaphore sem(1);
  ProcessHandle first = sim.spawn(outer(sim, log, sem));
  sim.spawn(outer(sim, log, sem));
  sim.run_until(10);
  REQUIRE(sem.available() == 0);
  REQUIRE(sim.live_processes() == 2);
  if (kill) {
    first.kill();
  } else {
    first.cancel();
  }
  sim.run();
  CHECK(first.done());
  CHECK(sim.live_processes() == 0);
  CHECK(sem.available() == 1);
  fingerprint = sim.fingerprint();
  stats = sim.stats();
  return log;
}

Process waits_on_semaphore(Semaphore& sem, bool& saw_cancel, int& held) {
  ++held;
  try {
    co_await sem.acquire();  // sync.hpp's acquire parks with park(): not killable
  } catch (const Cancelled&) {
    saw_cancel = true;
    --held;
    throw;
  }
}

Task<> deep(Simulation& sim, int depth, int& alive) {
  ++alive;
  sim::OnUnwind gone(sim, [&] { --alive; });
  if (depth == 0) {
    co_await sim::sleep(kSecond);
  } else {
    co_await deep(sim, depth - 1, alive);
  }
  gone.dismiss();
  --alive;
}

Process deep_process(Simulation& sim, int depth, int& alive) {
  co_await deep(sim, depth, alive);
}

}  // namespace

TEST_CASE("kill destroys a waiting process's frames in cancel's order, with cancel's events") {
  std::uint64_t fp_cancel = 0, fp_kill = 0;
  Simulation::Stats s_cancel, s_kill;
  Log by_cancel = run_one(false, fp_cancel, s_cancel);
  Log by_kill = run_one(true, fp_kill, s_kill);
  // Innermost first: the leaf's locals (its give-back between them), the middle, the outer.
  Log first_dies{"~leaf.b", "leaf gives back", "~leaf.a", "~middle", "~outer.before"};
  REQUIRE(by_cancel.size() >= first_dies.size());
  CHECK(Log(by_cancel.begin(), by_cancel.begin() + 5) == first_dies);
  CHECK(by_kill == by_cancel);
  CHECK(fp_kill == fp_cancel);
  CHECK(s_kill.events == s_cancel.events);
  CHECK(s_kill.frames_freed == s_cancel.frames_freed);
  CHECK(s_kill.frames_freed == 2);
}

TEST_CASE("kill of a process parked where park_killable was not used unwinds as cancel does") {
  Simulation sim(1);
  Semaphore sem(0);
  bool saw_cancel = false;
  int held = 0;
  ProcessHandle h = sim.spawn(waits_on_semaphore(sem, saw_cancel, held));
  sim.run_until(5);
  h.kill();
  sim.run();
  CHECK(saw_cancel);
  CHECK(held == 0);
  CHECK(h.done());
  CHECK(sim.live_processes() == 0);
}

TEST_CASE("killed processes free every nested frame (counted) and run every guard") {
  Simulation sim(1);
  int alive = 0;
  std::vector<ProcessHandle> hs;
  for (int i = 0; i < 200; ++i) hs.push_back(sim.spawn(deep_process(sim, 8, alive)));
  sim.run_until(10);
  CHECK(alive == 200 * 9);
  CHECK(sim.live_processes() == 200);
  const std::uint64_t events_before = sim.stats().events;
  for (auto& h : hs) h.kill();
  sim.run_until(10);  // the kills' wake-ups are due now
  CHECK(alive == 0);
  CHECK(sim.live_processes() == 0);
  CHECK(sim.stats().frames_freed == 200);
  for (auto& h : hs) CHECK(h.done());
  // Each kill was one event at the kill's instant, as a cancel is.
  CHECK(sim.stats().events == events_before + 200);
  // The sleeps' entries are stale: they wake nothing when they pop.
  const std::uint64_t stale_before = sim.stats().stale_pops;
  sim.run();
  CHECK(sim.stats().events == events_before + 200);
  CHECK(sim.stats().stale_pops == stale_before + 200);
}

TEST_CASE("kill of a process that never started finishes it without running its body") {
  Simulation sim(1);
  int alive = 0;
  ProcessHandle h = sim.spawn(deep_process(sim, 3, alive));
  h.kill();
  sim.run();
  CHECK(alive == 0);
  CHECK(h.done());
  CHECK(sim.live_processes() == 0);
}
