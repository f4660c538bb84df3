// A crash kills every goroutine (ProcessHandle::kill): their frames are destroyed without an
// unwind where they wait in a killable awaiter, unwound where not. Either way each one must
// give back exactly what it held: pool units, its P, its M in a syscall, its errgroup slot,
// its frames. Counted here with goroutines caught in every state the runtime has.
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "models/goruntime/errgroup.hpp"
#include "models/goruntime/go_process.hpp"
#include "sim/on_unwind.hpp"
#include "sim/sync.hpp"

using namespace sim;
using goruntime::GoConfig;
using goruntime::GoProcess;

namespace {

struct Tally {
  int held = 0;       // Held objects alive in goroutine frames
  int finished = 0;   // goroutines that ran to their end
};

struct Held {
  Tally* t;
  explicit Held(Tally& tally) : t(&tally) { ++t->held; }
  Held(const Held&) = delete;
  ~Held() { --t->held; }
};

// Holds a unit of a pool shared with the world outside the process across Go code, a
// blocking syscall and a syscall computing on a core, three Tasks deep.
Task<> inner(GoProcess& go, Tally& t, Duration work) {
  Held h(t);
  co_await go.cpu(work);
  co_await go.syscall(2 * kMillisecond);
  co_await go.syscall_cpu(300 * kMicrosecond);
}

Task<> middle(GoProcess& go, Tally& t, Semaphore& pool, Duration work) {
  Held h(t);
  co_await pool.acquire();  // parks with park(): a crash unwinds this one
  sim::OnUnwind give_back(go.simulation(), [&pool] { pool.release(); });
  co_await inner(go, t, work);
  give_back.dismiss();
  pool.release();
}

Task<> request(GoProcess& go, Tally& t, Semaphore& pool, Duration work) {
  Held h(t);
  co_await middle(go, t, pool, work);
  co_await sim::sleep(kMillisecond);
  ++t.finished;
}

Task<errgroup::Error> member_work(GoProcess& go, Tally& t) {
  Held h(t);
  co_await go.cpu(5 * kMillisecond);
  co_await sim::sleep(50 * kMillisecond);
  ++t.finished;
  co_return errgroup::Error{};
}

Process arrivals(GoProcess& go, Tally& t, Semaphore& pool, int n) {
  for (int i = 0; i < n && go.alive(); ++i) {
    go.go(request(go, t, pool, (1 + i % 7) * 200 * kMicrosecond));
    co_await sim::sleep(20 * kMicrosecond);
  }
}

// Outside the process: starts members on the Go process and waits for them all.
Process group_owner(errgroup::Group& g, GoProcess& go, Tally& t, int n, bool& waited) {
  for (int i = 0; i < n; ++i) {
    auto f = [&go, &t] { return member_work(go, t); };
    co_await g.go(f);
  }
  co_await g.wait();
  waited = true;
}

}  // namespace

TEST_CASE("a crash gives back everything its goroutines held, in every state they were in") {
  Simulation sim(11);
  GoConfig cfg;
  cfg.cores = 2;
  cfg.restart_delay = kSecond;
  GoProcess go(sim, cfg);
  Semaphore pool(8);
  Tally t;
  errgroup::Group g(sim, go.launcher());
  g.set_limit(16);
  bool waited = false;
  sim.spawn(arrivals(go, t, pool, 400));
  sim.spawn(group_owner(g, go, t, 16, waited));  // all started before the crash
  sim.run_until(5 * kMillisecond);
  // Caught mid-flight: waiting for the pool, for a P, on a core, in both kinds of syscall.
  REQUIRE(go.goroutines() > 50);
  REQUIRE(t.held > 50);
  REQUIRE(pool.available() == 0);
  REQUIRE(pool.waiters() > 0);
  REQUIRE(go.run_queue() > 0);
  REQUIRE(go.ms_in_syscall() + go.runnable_threads() > 0);
  const int finished_before = t.finished;
  go.kill();
  sim.run_until(6 * kMillisecond);
  CHECK(t.held == 0);                       // every frame's locals destroyed
  CHECK(t.finished == finished_before);     // nobody ran on past the crash
  CHECK(pool.available() == 8);             // every unit back, none twice
  CHECK(pool.waiters() == 0);
  CHECK(waited);                            // the group's Wait saw every member leave
  CHECK(go.goroutines() == 0);
  CHECK(go.invariants_hold());
  CHECK(sim.live_processes() == 0);         // the arrivals stopped; every frame freed
  sim.run_until(2 * kSecond);               // restarted: the process runs new goroutines
  CHECK(go.alive());
  sim.spawn(arrivals(go, t, pool, 10));
  sim.run_until(3 * kSecond);
  CHECK(t.finished == finished_before + 10);
  CHECK(t.held == 0);
  CHECK(pool.available() == 8);
  CHECK(go.invariants_hold());
  sim.shutdown();
}

namespace {
// A goroutine written as a process of its own (GoProcess::go_process), as a go-service's
// request goroutine is: enter() is its first statement.
Process own_goroutine(GoProcess& go, std::uint64_t inc, Tally& t) {
  auto g = co_await go.enter(inc);
  Held h(t);
  co_await sim::sleep(kMillisecond);
  ++t.finished;
}
}  // namespace

TEST_CASE("go_process: a goroutine of its own is counted while it runs, and one started just "
          "before a crash never runs") {
  Simulation sim(3);
  GoConfig cfg;
  cfg.cores = 2;
  cfg.restart_delay = kSecond;
  GoProcess go(sim, cfg);
  Tally t;
  const std::int64_t before = go.goroutines();
  go.go_process(own_goroutine(go, go.incarnation(), t));
  CHECK(go.goroutines() == before);  // `go` queues it; it counts once it runs
  sim.run_until(kMicrosecond);
  CHECK(go.goroutines() == before + 1);
  CHECK(t.held == 1);
  sim.run_until(2 * kMillisecond);
  CHECK(t.finished == 1);
  CHECK(go.goroutines() == before);
  // Started, then the process dies before the goroutine's first instant: it unwinds at its
  // enter(), runs nothing and holds nothing; the restarted process does not count it.
  go.go_process(own_goroutine(go, go.incarnation(), t));
  go.kill();
  sim.run_until(3 * kSecond);
  CHECK(go.alive());
  CHECK(t.finished == 1);
  CHECK(t.held == 0);
  CHECK(go.goroutines() == 0);
  // A goroutine of the new incarnation runs.
  go.go_process(own_goroutine(go, go.incarnation(), t));
  sim.run_until(4 * kSecond);
  CHECK(t.finished == 2);
  sim.shutdown();
}
