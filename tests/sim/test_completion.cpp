// sim::Completion (a one-shot reply with a deadline) and cancellable timers on the callback
// path: the public ways for models to wait for someone else, with no sim::detail.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>

#include "sim/completion.hpp"
#include "sim/process.hpp"
#include "sim/simulation.hpp"

using namespace sim;

namespace {

Process await_reply(Completion<int>& c, Time deadline, std::optional<int>& got, Time& at) {
  got = co_await c.wait_until(deadline);
  ProcState& me = co_await this_process();
  at = me.sim->now();
}

struct Tick final : Handler {
  int fired = 0;
  void on_event(Simulation&) override { ++fired; }
};

}  // namespace

TEST_CASE("a completion delivered before the deadline resumes the waiter when it is visible") {
  Simulation sim(1);
  Completion<int> c;
  std::optional<int> got;
  Time at = -1;
  sim.spawn(await_reply(c, 500 * kMillisecond, got, at), "test.client");
  sim.run_until(kMillisecond);
  CHECK(c.waiting());
  c.complete_at(sim, 3 * kMillisecond, 42);  // the reply's trip back takes 2 ms
  sim.run_until(400 * kMillisecond);
  CHECK(got == std::optional<int>(42));
  CHECK(at == 3 * kMillisecond);
  CHECK(sim.live_processes() == 0);  // freed at once; the 500 ms deadline is a stale entry
  CHECK(sim.pending_events() == 1);
  sim.run();
  CHECK(sim.stats().stale_pops == 1);
}

TEST_CASE("a deadline before the reply returns nullopt and a late completion wakes nothing") {
  Simulation sim(1);
  Completion<int> c;
  std::optional<int> got = 7;
  Time at = -1;
  sim.spawn(await_reply(c, 500 * kMillisecond, got, at), "test.client");
  sim.run_until(600 * kMillisecond);
  CHECK_FALSE(got.has_value());
  CHECK(at == 500 * kMillisecond);
  CHECK_FALSE(c.waiting());
  c.complete(sim, 1);  // late: nobody waits
  CHECK(c.completed());
  CHECK(sim.pending_events() == 0);
  CHECK_THROWS_AS(c.complete(sim, 2), std::logic_error);
}

TEST_CASE("a completion already visible passes at once; one visible after the deadline does not") {
  Simulation sim(1);
  Completion<int> early, late;
  early.complete(sim, 5);
  late.complete_at(sim, kSecond, 6);
  std::optional<int> a, b;
  Time at_a = -1, at_b = -1;
  sim.spawn(await_reply(early, 10 * kMillisecond, a, at_a), "test.a");
  sim.spawn(await_reply(late, 10 * kMillisecond, b, at_b), "test.b");
  sim.run();
  CHECK(a == std::optional<int>(5));
  CHECK(at_a == 0);
  CHECK_FALSE(b.has_value());
  CHECK(at_b == 10 * kMillisecond);
  CHECK_THROWS_AS(late.complete_at(sim, sim.now() - 1, 1), std::logic_error);  // twice
  Completion<int> fresh;
  CHECK_THROWS_AS(fresh.complete_at(sim, sim.now() - 1, 1), SimulationFailure);  // the past
}

TEST_CASE("a frame destroyed mid-wait is never woken by a late completion") {
  auto c = std::make_shared<Completion<int>>();
  std::optional<int> got;
  Time at = -1;
  {
    Simulation sim(1);
    ProcessHandle h = sim.spawn(await_reply(*c, kSecond, got, at), "test.client");
    sim.run_until(kMillisecond);
    h.cancel();
    sim.run_until(2 * kMillisecond);
    CHECK(h.done());
    CHECK_FALSE(c->waiting());  // the cancelled wait cleared its registration
    c->complete(sim, 1);
    CHECK(sim.pending_events() == 1);  // only the stale deadline
  }
  CHECK_FALSE(got.has_value());
}

TEST_CASE("a cancelled timer never runs and its handler may be destroyed at once") {
  Simulation sim(1);
  auto doomed = std::make_unique<Tick>();
  Tick kept;
  TimerToken t1 = sim.schedule_timer(10, *doomed);
  TimerToken t2 = sim.schedule_timer(20, kept);
  CHECK(sim.timer_pending(t1));
  CHECK(sim.cancel_timer(t1));
  CHECK_FALSE(t1.armed());
  CHECK_FALSE(sim.cancel_timer(t1));  // already reset
  doomed.reset();                     // the queued entry names the slot, not the handler
  TimerToken t3 = sim.schedule_timer(15, kept);  // reuses the cancelled slot
  sim.run();
  CHECK(kept.fired == 2);
  CHECK(sim.stats().stale_pops == 1);
  CHECK(sim.events_executed() == 2);
  CHECK_FALSE(sim.timer_pending(t2));  // ran: stale
  CHECK_FALSE(sim.cancel_timer(t3));
  Tick late;
  CHECK_THROWS_AS(sim.schedule_timer(sim.now() - 1, late), SimulationFailure);
}

TEST_CASE("timers run in (time, sequence) order with plain handler events") {
  Simulation a(1), b(1);
  Tick ha, hb, ta, tb;
  ha.kind = a.intern_kind("x");
  hb.kind = b.intern_kind("x");
  for (int i = 0; i < 50; ++i) {
    a.schedule_at(i % 7, ha);
    a.schedule_timer(i % 5, ta);
    b.schedule_at(i % 7, hb);
    b.schedule_at(i % 5, tb);
  }
  a.run();
  b.run();
  CHECK(a.fingerprint() == b.fingerprint());  // a timer is an ordinary event once it runs
  CHECK(ta.fired == 50);
}
