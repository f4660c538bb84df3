// The kernel's errors and lifetimes: scheduling into the past throws, durations saturate at the
// end of time, a frame is freed when its process completes (a stale timeout keeps nothing
// alive), a handle outlives its Simulation safely, and a wrapped generation never resumes the
// wrong awaiter.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>

#include "sim/process.hpp"
#include "sim/simulation.hpp"
#include "sim/sync.hpp"

using namespace sim;

namespace {

struct Tick final : Handler {
  int fired = 0;
  void on_event(Simulation&) override { ++fired; }
};

struct PastScheduler final : Handler {
  void on_event(Simulation& s) override { s.schedule_at(s.now() - 1, *this); }
};

Process wait_with_deadline(Event& ev, Duration timeout, std::optional<bool>& got) {
  got = co_await ev.wait_for(timeout);
}

Process long_sleeper(bool& woke) {
  co_await sleep(kHour);
  woke = true;
}

Process sleep_for(Duration d) { co_await sleep(d); }

Process past_sleeper_child(Simulation& s) {
  co_await sleep(kSecond);
  Tick t;
  s.schedule_at(s.now() - kMillisecond, t);  // throws: the process fails, run() rethrows
}

}  // namespace

TEST_CASE("scheduling into the past throws with the event and both times") {
  Simulation sim(1);
  PastScheduler h;
  h.kind = sim.intern_kind("test.past");
  h.actor_id = 7;
  sim.schedule_at(10, h);
  try {
    sim.run();
    FAIL("no exception");
  } catch (const SimulationFailure& e) {
    const std::string what = e.what();
    CHECK(what.find("test.past") != std::string::npos);
    CHECK(what.find("actor 7") != std::string::npos);
    CHECK(what.find("t=9 ns") != std::string::npos);
    CHECK(what.find("now is t=10 ns") != std::string::npos);
    CHECK(e.at_ns == 10);
  }
  Tick t;
  CHECK_THROWS_AS(sim.schedule_in(-1, t), SimulationFailure);
  CHECK_NOTHROW(sim.schedule_in(0, t));  // now is schedulable
  sim.shutdown();  // `t` and `h` go before `sim`: discard their entries while they exist
}

TEST_CASE("a process that schedules into the past fails the run") {
  Simulation sim(1);
  sim.spawn(past_sleeper_child(sim), "test.past_process");
  CHECK_THROWS_WITH(sim.run(), Catch::Contains("scheduling into the past"));
}

TEST_CASE("durations past the end of time saturate at kTimeMax, both edges") {
  Simulation sim(1);
  Tick a, b, c;
  sim.schedule_at(5, a);
  sim.run_until(5);
  REQUIRE(sim.now() == 5);
  CHECK(sim.after(kTimeMax - 5) == kTimeMax);      // exactly the end: no saturation needed
  CHECK(sim.after(kTimeMax - 6) == kTimeMax - 1);  // one before
  CHECK(sim.after(kTimeMax - 4) == kTimeMax);      // one past: saturated
  CHECK(sim.after(kTimeMax) == kTimeMax);
  sim.schedule_in(kTimeMax, b);  // would overflow int64 without saturation
  CHECK(sim.next_event_time() == kTimeMax);
  sim.spawn(sleep_for(kTimeMax), "test.sleep_forever");
  CHECK(sim.run_until(kTimeMax - 1));
  CHECK(b.fired == 0);
  sim.run();  // kTimeMax is reached by run(): after every finite time, never before
  CHECK(b.fired == 1);
  CHECK(sim.now() == kTimeMax);
  CHECK(sim.live_processes() == 0);
  (void)c;
}

TEST_CASE("a frame is freed when its process completes; its stale timeout keeps nothing alive") {
  Simulation sim(1);
  Event ev;
  std::optional<bool> got;
  sim.spawn(wait_with_deadline(ev, 500 * kMillisecond, got), "test.waiter");
  sim.run_until(kMillisecond);
  CHECK(sim.live_processes() == 1);
  ev.set();
  sim.run_until(2 * kMillisecond);
  REQUIRE(got == std::optional<bool>(true));
  CHECK(sim.live_processes() == 0);  // freed at completion,
  CHECK(sim.pending_events() == 1);  // while its 500 ms timeout is still queued
  CHECK(sim.stats().frames_freed == 1);
  CHECK(sim.stats().stale_pops == 0);
  sim.run();
  CHECK(sim.stats().stale_pops == 1);  // the timeout popped and woke nothing
  CHECK(sim.pending_events() == 0);
}

TEST_CASE("a cancelled sleeper's frame is freed at once and its timer counts as stale") {
  Simulation sim(1);
  bool woke = false;
  ProcessHandle h = sim.spawn(long_sleeper(woke), "test.sleeper");
  sim.run_until(kSecond);
  h.cancel();
  sim.run_until(2 * kSecond);
  CHECK(h.done());
  CHECK(sim.live_processes() == 0);
  CHECK(sim.stats().frames_freed == 1);
  CHECK(sim.pending_events() == 1);  // the hour-long timer, which names the slot, not the frame
  sim.run();
  CHECK_FALSE(woke);
  CHECK(sim.stats().stale_pops == 1);
}

TEST_CASE("pending events and frames do not grow with the number of timed-out waits") {
  // One request per millisecond, each waiting at most 500 ms for a reply that comes after 1 ms:
  // every deadline goes stale. Peaks must stay at the in-flight bound, whatever the count.
  auto peaks = [](int requests) {
    Simulation sim(1);
    std::vector<std::unique_ptr<Event>> replies;
    std::vector<std::optional<bool>> got(static_cast<std::size_t>(requests));
    for (int i = 0; i < requests; ++i) {
      replies.push_back(std::make_unique<Event>());
      sim.run_until(i * kMillisecond);
      sim.spawn(wait_with_deadline(*replies.back(), 500 * kMillisecond,
                                   got[static_cast<std::size_t>(i)]),
                "test.request");
      if (i > 0) replies[static_cast<std::size_t>(i) - 1]->set();
    }
    replies.back()->set();
    sim.run();
    for (const auto& g : got) REQUIRE(g == std::optional<bool>(true));
    // Every deadline but the last request's (its flag is set before it first runs) goes stale.
    CHECK(sim.stats().stale_pops == static_cast<std::uint64_t>(requests) - 1);
    CHECK(sim.live_processes() == 0);
    return sim.stats();
  };
  const Simulation::Stats small = peaks(2000);
  const Simulation::Stats large = peaks(20000);
  CHECK(large.peak_frames == small.peak_frames);
  CHECK(large.peak_frames <= 3);
  CHECK(large.peak_pending == small.peak_pending);
  CHECK(large.peak_pending <= 510);  // 500 ms of deadlines at one per ms, plus the live wakes
}

TEST_CASE("a process handle outliving its simulation is safe") {
  ProcessHandle h;
  bool woke = false;
  {
    Simulation sim(1);
    h = sim.spawn(long_sleeper(woke), "test.sleeper");
    sim.run_until(kSecond);
    CHECK_FALSE(h.done());
  }  // frames destroyed; the handle keeps the process table (not the frame) alive
  CHECK(h.valid());
  CHECK(h.done());
  h.cancel();  // no simulation to wake: a no-op, never a use-after-free
  ProcessHandle copy = h;
  CHECK(copy.done());
  h = ProcessHandle();
  CHECK_FALSE(woke);
}  // the last handle frees the table (ASan: no leak, no use-after-free)

namespace {

// Parks on a timed wait that the flag ends early (its deadline entry goes stale), then stands
// in for 2^32 - 1 further resumes by setting its own generation, then parks on an untimed
// wait. Without the wrap rule the stale deadline would carry the current generation again
// and resume the untimed wait without a set() (its assert, and `wrong` below).
Process wrap_victim(Event& early, Event& never, bool& wrong, bool& finished) {
  ProcState& me = co_await this_process();
  me.gen = 0xFFFFFFFEU;                 // the next resumes go ..FE -> ..FF -> 0 (the wrap)
  co_await early.wait_for(kSecond);   // deadline queued with gen 0xFFFFFFFE
  co_await yield();                   // resumed at gen ..FF; this resume wraps to 0
  me.gen = 0xFFFFFFFEU;               // as if 2^32 - 2 more resumes had happened
  co_await never.wait();              // parks with gen ..FE: the stale deadline's value
  wrong = !never.is_set();
  finished = true;
}

}  // namespace

TEST_CASE("a generation wrap cannot resume the wrong awaiter") {
  Simulation sim(1);
  Event early, never;
  bool wrong = false, finished = false;
  ProcessHandle h = sim.spawn(wrap_victim(early, never, wrong, finished), "test.wrap");
  sim.run_until(kMillisecond);
  early.set();
  sim.run_until(2 * kSecond);  // past the stale deadline
  CHECK_FALSE(finished);       // still parked on `never`
  CHECK_FALSE(wrong);
  CHECK(sim.stats().stale_pops == 1);  // the deadline, turned into a tombstone at the wrap
  never.set();
  sim.run();
  CHECK(finished);
  CHECK_FALSE(wrong);
}
