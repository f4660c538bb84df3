// sim::DeadlineList: many waits' deadlines behind one timer. Waits that end before their
// deadline must leave nothing in the event queue; those that do not must end exactly at their
// deadline, in deadline order even when armed out of order; a frame destroyed mid-wait is never
// woken; the list costs about one event per timeout length, not one per wait.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <vector>

#include "sim/completion.hpp"
#include "sim/deadline_list.hpp"
#include "sim/process.hpp"
#include "sim/simulation.hpp"

using namespace sim;

namespace {

Process await_listed(Completion<int>& c, Time deadline, DeadlineList& list,
                     std::optional<int>& got, Time& at) {
  got = co_await c.wait_until(deadline, list);
  ProcState& me = co_await this_process();
  at = me.sim->now();
}

// Answers the caller's current request when its event runs (the reply's arrival).
struct Replier final : Handler {
  std::shared_ptr<Completion<int>> request;
  int value = 0;
  void on_event(Simulation& sim) override { request->complete(sim, value); }
};

// A caller that issues `calls` requests one after the other, each answered `reply` after it
// is sent, each waiting with a deadline `timeout` after it is sent.
Process caller(Simulation& sim, DeadlineList& list, int calls, Duration reply, Duration timeout,
               int& answered) {
  Replier replier;
  for (int i = 0; i < calls; ++i) {
    replier.request = std::make_shared<Completion<int>>();
    replier.value = i;
    sim.schedule_in(reply, replier);
    std::optional<int> got = co_await replier.request->wait_until(sim.now() + timeout, list);
    if (got == std::optional<int>(i)) ++answered;
  }
}

}  // namespace

TEST_CASE("waits that end before their deadlines leave no queue entry behind") {
  Simulation sim(1);
  DeadlineList list(sim, "test.deadlines");
  int answered = 0;
  // 10,000 calls of 1 ms each with an 11 s timeout: 10 s of calls. Without the list each would
  // leave a stale wake-up until its deadline (up to 10,000 pending at once).
  sim.spawn(caller(sim, list, 10'000, kMillisecond, 11 * kSecond, answered), "test.caller");
  std::size_t most_pending = 0;
  for (Time t = kMillisecond / 2; t < 12 * kSecond; t += kMillisecond) {
    sim.run_until(t);
    most_pending = std::max(most_pending, sim.pending_events());
  }
  sim.run();
  CHECK(answered == 10'000);
  CHECK(most_pending <= 3);  // the caller's next reply, the list's one timer
  CHECK(sim.stats().stale_pops == 0);
  CHECK(list.empty());
  // The list's timer fired at the first call's deadline and re-armed for the then-oldest
  // call's: about one event per 11 s, not one per call. Per call a reply and a wake-up, then
  // the spawn and those few timer events.
  CHECK(sim.events_executed() <= 2 * 10'000 + 1 + 3);
}

TEST_CASE("a listed wait past its deadline ends exactly then, in deadline order") {
  Simulation sim(1);
  DeadlineList list(sim, "test.deadlines");
  Completion<int> slow;
  Completion<int> fast;
  Completion<int> never;
  std::optional<int> got_slow = 0, got_fast = 0, got_never = 0;
  Time at_slow = -1, at_fast = -1, at_never = -1;
  // Armed out of order: the 300 ms deadline after the 500 ms one.
  sim.spawn(await_listed(slow, 500 * kMillisecond, list, got_slow, at_slow), "a");
  sim.spawn(await_listed(fast, 300 * kMillisecond, list, got_fast, at_fast), "b");
  sim.spawn(await_listed(never, 700 * kMillisecond, list, got_never, at_never), "c");
  sim.run_until(kMillisecond);
  slow.complete_at(sim, 400 * kMillisecond, 1);  // before its deadline
  sim.run();
  CHECK(got_slow == std::optional<int>(1));
  CHECK(at_slow == 400 * kMillisecond);
  CHECK_FALSE(got_fast.has_value());
  CHECK(at_fast == 300 * kMillisecond);
  CHECK_FALSE(got_never.has_value());
  CHECK(at_never == 700 * kMillisecond);
  CHECK(list.empty());
  CHECK(sim.live_processes() == 0);
}

TEST_CASE("a frame destroyed mid-wait leaves the list and is never woken") {
  auto c = std::make_shared<Completion<int>>();
  std::optional<int> got;
  Time at = -1;
  Simulation sim(1);
  DeadlineList list(sim, "test.deadlines");
  ProcessHandle h = sim.spawn(await_listed(*c, kSecond, list, got, at), "test.client");
  sim.run_until(kMillisecond);
  CHECK_FALSE(list.empty());
  h.cancel();
  sim.run_until(2 * kMillisecond);
  CHECK(h.done());
  CHECK(list.empty());  // the cancelled wait unlinked itself
  sim.run();            // the list's timer fires at 1 s and finds nobody to wake
  CHECK_FALSE(got.has_value());
  CHECK(at == -1);
  CHECK(sim.stats().stale_pops == 0);
}
