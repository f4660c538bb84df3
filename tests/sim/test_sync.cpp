#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/sync.hpp"

using namespace sim;

namespace {

using Log = std::vector<std::string>;

std::string at(ProcState& me, const std::string& what) {
  return what + "@" + std::to_string(me.sim->now());
}

// ---- semaphore actors ----

Process acquirer(Semaphore& sem, Log& log, std::string name, Duration start, std::int64_t n,
                 Duration hold) {
  co_await sim::sleep(start);
  co_await sem.acquire(n);
  ProcState& me = co_await this_process();
  log.push_back(at(me, name + "+"));
  if (hold >= 0) {
    co_await sim::sleep(hold);
    sem.release(n);
    log.push_back(at(me, name + "-"));
  }
}

Process timed_acquirer(Semaphore& sem, Log& log, std::string name, std::int64_t n, Duration t) {
  bool got = co_await sem.acquire_for(n, t);
  ProcState& me = co_await this_process();
  log.push_back(at(me, name + (got ? "+" : " timeout")));
}

Process cancel_watcher(Task<void> body, Log& log, std::string name) {
  ProcState& me = co_await this_process();
  try {
    co_await std::move(body);
  } catch (const Cancelled&) {
    log.push_back(at(me, name + " cancelled"));
    throw;
  }
}

Task<void> acquire_task(Semaphore& sem, std::int64_t n) { co_await sem.acquire(n); }

Process releaser(Semaphore& sem, Duration when, std::int64_t n, ProcessHandle victim,
                 bool cancel_first) {
  co_await sim::sleep(when);
  if (cancel_first) victim.cancel();
  sem.release(n);
  if (!cancel_first) victim.cancel();
}

Process release_then_check(Semaphore& sem, Duration when, Log& log) {
  co_await sim::sleep(when);
  sem.release(5);
  log.push_back("released");  // the woken waiter must not have run inline
  co_await sim::yield();
  log.push_back("after-yield");
}

// ---- channel actors ----

Process producer(Channel<int>& ch, Log& log, int first, int count, Duration gap) {
  for (int i = first; i < first + count; ++i) {
    bool ok = co_await ch.send(i);
    ProcState& me = co_await this_process();
    log.push_back(at(me, "sent" + std::to_string(i) + (ok ? "" : " refused")));
    if (gap > 0) co_await sim::sleep(gap);
  }
}

Process consumer(Channel<int>& ch, Log& log, std::string name, Duration start, Duration gap) {
  co_await sim::sleep(start);
  for (;;) {
    std::optional<int> v = co_await ch.recv();
    ProcState& me = co_await this_process();
    if (!v) {
      log.push_back(at(me, name + " closed"));
      co_return;
    }
    log.push_back(at(me, name + " got" + std::to_string(*v)));
    if (gap > 0) co_await sim::sleep(gap);
  }
}

Task<void> recv_task(Channel<int>& ch, Log& log) {
  std::optional<int> v = co_await ch.recv();
  log.push_back(v ? "got" + std::to_string(*v) : "none");
}

Process timed_receiver(Channel<int>& ch, Log& log, Duration t) {
  std::optional<int> v = co_await ch.recv_for(t);
  ProcState& me = co_await this_process();
  log.push_back(at(me, v ? "got" + std::to_string(*v) : "timeout"));
}

Process timed_sender(Channel<int>& ch, Log& log, int v, Duration t) {
  bool ok = co_await ch.send_for(v, t);
  ProcState& me = co_await this_process();
  log.push_back(at(me, ok ? "sent" : "send timeout"));
}

Process send_then_cancel(Channel<int>& ch, Duration when, int v, ProcessHandle victim) {
  co_await sim::sleep(when);
  CHECK(ch.try_send(v));
  victim.cancel();
}

Process string_sender(Channel<std::string>& ch) {
  co_await ch.send(std::string(100, 'x'));  // heap-allocated: ASan sees it if it leaks
}

Process closer(Channel<int>& ch, Duration when) {
  co_await sim::sleep(when);
  ch.close();
}

// ---- event / condition actors ----

Process event_waiter(Event& ev, Log& log, std::string name, Duration start) {
  co_await sim::sleep(start);
  co_await ev.wait();
  ProcState& me = co_await this_process();
  log.push_back(at(me, name));
}

Process event_timed_waiter(Event& ev, Log& log, Duration t) {
  bool ok = co_await ev.wait_for(t);
  ProcState& me = co_await this_process();
  log.push_back(at(me, ok ? "set" : "timeout"));
}

Process setter(Event& ev, Duration when, bool reset_after) {
  co_await sim::sleep(when);
  ev.set();
  if (reset_after) ev.reset();
}

Process cond_waiter(Condition& cv, Log& log, std::string name) {
  co_await cv.wait();
  ProcState& me = co_await this_process();
  log.push_back(at(me, name));
}

Process cond_timed_waiter(Condition& cv, Log& log, std::string name, Duration t) {
  bool ok = co_await cv.wait_for(t);
  ProcState& me = co_await this_process();
  log.push_back(at(me, name + (ok ? "" : " timeout")));
}

Task<void> cond_task(Condition& cv) { co_await cv.wait(); }
Task<void> event_task(Event& ev) { co_await ev.wait(); }
Task<void> send_task(Channel<int>& ch, int v) { co_await ch.send(v); }

Process notifier(Condition& cv, Duration when, bool all, ProcessHandle victim) {
  co_await sim::sleep(when);
  if (all) {
    cv.notify_all();
  } else {
    cv.notify_one();
  }
  if (victim.valid()) victim.cancel();
}

}  // namespace

TEST_CASE("sync: weighted semaphore is strictly FIFO with head-of-line blocking") {
  Simulation sim(1);
  Semaphore sem(3);
  Log log;
  sim.spawn(acquirer(sem, log, "A", 0, 2, 10));  // holds 2 of 3 until t=10
  sim.spawn(acquirer(sem, log, "B", 1, 5, 10));  // needs 5: waits for more than exists now
  sim.spawn(acquirer(sem, log, "C", 2, 1, 10));  // 1 is free, but B is ahead of it
  sim.run_until(5);
  CHECK(log == Log{"A+@0"});
  CHECK(sem.available() == 1);
  CHECK(sem.waiters() == 2);
  CHECK_FALSE(sem.try_acquire(1));  // no barging past the queue either
  sim.run_until(15);
  CHECK(log == Log{"A+@0", "A-@10"});  // 3 free, B still blocks C
  sem.release(2);                      // from outside any process: 5 free
  sim.run();
  CHECK(log == Log{"A+@0", "A-@10", "B+@15", "B-@25", "C+@25", "C-@35"});
  CHECK(sem.available() == 5);
  CHECK(sem.waiters() == 0);
}

TEST_CASE("sync: semaphore wake-ups go through the queue, not inline") {
  Simulation sim(1);
  Semaphore sem(0);
  Log log;
  sim.spawn(acquirer(sem, log, "W", 0, 5, -1));
  sim.spawn(release_then_check(sem, 7, log));
  sim.run();
  CHECK(log == Log{"released", "W+@7", "after-yield"});
}

TEST_CASE("sync: acquire_for times out, and a timed-out head unblocks the queue") {
  Simulation sim(1);
  Semaphore sem(2);
  Log log;
  sim.spawn(timed_acquirer(sem, log, "big", 10, 50));
  sim.spawn(timed_acquirer(sem, log, "small", 1, 100));
  sim.run();
  // "small" fits from the start but waits behind "big" until big gives up at t=50.
  CHECK(log == Log{"big timeout@50", "small+@50"});
  CHECK(sem.available() == 1);
  CHECK(sem.waiters() == 0);

  Semaphore free_sem(1);
  Log log2;
  sim.spawn(timed_acquirer(free_sem, log2, "now", 1, 0));
  sim.run();
  // The run went on to t=100: small's timeout, though stale, is still a queued entry.
  CHECK(log2 == Log{"now+@100"});
}

TEST_CASE("sync: cancelling a semaphore waiter leaks no units") {
  for (bool cancel_first : {true, false}) {
    CAPTURE(cancel_first);
    Simulation sim(1);
    Semaphore sem(0);
    Log log;
    auto victim = sim.spawn(cancel_watcher(acquire_task(sem, 2), log, "V"));
    Log other;
    sim.spawn(acquirer(sem, other, "O", 1, 2, -1));  // queued behind the victim
    // Release exactly what the victim asked for; cancel before or just after the grant.
    sim.spawn(releaser(sem, 5, 2, victim, cancel_first));
    sim.run();
    CHECK(log == Log{"V cancelled@5"});
    CHECK(victim.done());
    // The 2 units went (directly or given back) to the next waiter; none were lost.
    CHECK(other == Log{"O+@5"});
    CHECK(sem.available() == 0);
    CHECK(sem.waiters() == 0);
  }
}

TEST_CASE("sync: semaphore rejects bad arguments with clear messages") {
  Semaphore sem(1);
  CHECK_THROWS_AS(Semaphore(-1), std::invalid_argument);
  CHECK_THROWS_WITH(sem.release(-2), Catch::Contains("negative unit count"));
  CHECK_THROWS_AS(sem.acquire(-1), std::invalid_argument);
  CHECK_THROWS_WITH(sem.acquire_for(1, -5), Catch::Contains("negative timeout"));
}

TEST_CASE("sync: bounded channel blocks senders when full and keeps FIFO order") {
  Simulation sim(1);
  Channel<int> ch(2);
  Log log;
  sim.spawn(producer(ch, log, 1, 4, 0));
  sim.spawn(consumer(ch, log, "r", 10, 5));
  sim.run();
  CHECK(log == Log{"sent1@0", "sent2@0", "r got1@10", "sent3@10", "r got2@15", "sent4@15",
                   "r got3@20", "r got4@25"});
  CHECK(ch.size() == 0);
  CHECK(ch.waiting_receivers() == 1);  // r waits for more
}

TEST_CASE("sync: unbounded channel never blocks; rendezvous channel hands over directly") {
  Simulation sim(1);
  Channel<int> unbounded;
  Log log;
  sim.spawn(producer(unbounded, log, 1, 3, 0));
  sim.run();
  CHECK(log == Log{"sent1@0", "sent2@0", "sent3@0"});
  CHECK(unbounded.size() == 3);

  Channel<int> rendezvous(0);
  Log log2;
  sim.spawn(producer(rendezvous, log2, 1, 2, 0));
  sim.spawn(consumer(rendezvous, log2, "r", 10, 10));
  sim.run();
  CHECK(log2 == Log{"r got1@10", "sent1@10", "r got2@20", "sent2@20"});
  CHECK(rendezvous.size() == 0);
}

TEST_CASE("sync: channel close drains buffered values, then wakes everyone") {
  Simulation sim(1);
  Channel<int> ch(1);
  Log log;
  sim.spawn(producer(ch, log, 1, 3, 0));  // 1 buffered, 2 blocks
  sim.spawn(closer(ch, 5));
  sim.spawn(consumer(ch, log, "r", 10, 0));
  sim.run();
  CHECK(log == Log{"sent1@0", "sent2 refused@5", "sent3 refused@5", "r got1@10", "r closed@10"});
  CHECK_FALSE(ch.try_send(9));

  Channel<int> empty(4);
  Log log2;
  sim.spawn(consumer(empty, log2, "a", 0, 0));
  sim.spawn(consumer(empty, log2, "b", 0, 0));
  sim.spawn(closer(empty, 3));
  sim.run();
  CHECK(log2 == Log{"a closed@13", "b closed@13"});
  CHECK(empty.waiting_receivers() == 0);
}

TEST_CASE("sync: channel timeouts") {
  Simulation sim(1);
  Channel<int> ch(1);
  Log log;
  sim.spawn(timed_receiver(ch, log, 20));
  sim.run();
  CHECK(log == Log{"timeout@20"});
  CHECK(ch.waiting_receivers() == 0);

  CHECK(ch.try_send(1));  // full now
  sim.spawn(timed_sender(ch, log, 2, 30));
  sim.run();
  CHECK(log == Log{"timeout@20", "send timeout@50"});
  CHECK(ch.size() == 1);  // the timed-out value was not sent
  CHECK(ch.try_recv() == 1);
  CHECK_FALSE(ch.try_recv().has_value());
  CHECK_THROWS_AS(ch.recv_for(-1), std::invalid_argument);
}

TEST_CASE("sync: a cancelled receiver loses no value") {
  Simulation sim(1);
  Channel<int> ch(4);
  Log log;
  auto victim = sim.spawn(cancel_watcher(recv_task(ch, log), log, "V"));
  // The value reaches the victim, which is cancelled before it runs: it goes back.
  sim.spawn(send_then_cancel(ch, 5, 42, victim));
  sim.spawn(consumer(ch, log, "r", 10, 0));
  sim.run();
  CHECK(log == Log{"V cancelled@5", "r got42@10"});

  // Cancelled while plainly waiting: the next value goes to the next receiver.
  Channel<int> ch2(4);
  Log log2;
  auto v2 = sim.spawn(cancel_watcher(recv_task(ch2, log2), log2, "V"));
  sim.spawn(consumer(ch2, log2, "r", 1, 0));
  sim.run_until(sim.now() + 2);
  v2.cancel();
  sim.run_until(sim.now() + 1);
  CHECK(ch2.try_send(7));
  sim.run();
  CHECK(log2.size() == 2);
  CHECK(log2[0].rfind("V cancelled@", 0) == 0);
  CHECK(log2[1].rfind("r got7@", 0) == 0);
}

TEST_CASE("sync: event wakes all waiters in FIFO order; wait after set passes") {
  Simulation sim(1);
  Event ev;
  Log log;
  sim.spawn(event_waiter(ev, log, "a", 0));
  sim.spawn(event_waiter(ev, log, "b", 1));
  sim.spawn(setter(ev, 10, false));
  sim.spawn(event_waiter(ev, log, "late", 20));
  sim.run();
  CHECK(log == Log{"a@10", "b@10", "late@20"});
  CHECK(ev.is_set());

  ev.reset();
  Log log2;
  sim.spawn(event_timed_waiter(ev, log2, 5));
  sim.spawn(event_timed_waiter(ev, log2, 50));
  sim.spawn(setter(ev, 10, true));  // a pulse: set then reset at once still wakes waiters
  sim.run();
  CHECK(log2 == Log{"timeout@25", "set@30"});
  CHECK_FALSE(ev.is_set());
  CHECK(ev.waiters() == 0);
}

TEST_CASE("sync: condition notify_one wakes the head, notify_all wakes everyone") {
  Simulation sim(1);
  Condition cv;
  Log log;
  sim.spawn(cond_waiter(cv, log, "a"));
  sim.spawn(cond_waiter(cv, log, "b"));
  sim.spawn(cond_waiter(cv, log, "c"));
  sim.spawn(notifier(cv, 5, false, {}));
  sim.spawn(notifier(cv, 7, true, {}));
  sim.run();
  CHECK(log == Log{"a@5", "b@7", "c@7"});
  CHECK_FALSE(cv.notify_one());

  Log log2;
  sim.spawn(cond_timed_waiter(cv, log2, "t", 3));
  sim.run();
  CHECK(log2 == Log{"t timeout@10"});
  CHECK(cv.waiters() == 0);
}

TEST_CASE("sync: a notification raced by cancellation passes to the next waiter") {
  Simulation sim(1);
  Condition cv;
  Log log;
  auto victim = sim.spawn(cancel_watcher(cond_task(cv), log, "V"));
  sim.spawn(cond_waiter(cv, log, "next"));
  sim.spawn(notifier(cv, 5, false, victim));  // notify_one picks V, then V is cancelled
  sim.run();
  CHECK(log == Log{"V cancelled@5", "next@5"});
}

TEST_CASE("sync: destroying a simulation with processes blocked on every primitive") {
  // Both destruction orders: primitives outliving the simulation, and the reverse.
  Log log;
  {
    Semaphore sem(0);
    Channel<int> full(1);
    Channel<int> empty(1);
    Event ev;
    Condition cv;
    {
      Simulation sim(1);
      CHECK(full.try_send(0));
      sim.spawn(acquirer(sem, log, "s", 0, 1, -1));
      sim.spawn(timed_acquirer(sem, log, "t", 1, kSecond));
      sim.spawn(producer(full, log, 1, 1, 0));
      sim.spawn(consumer(empty, log, "r", 0, 0));
      sim.spawn(event_waiter(ev, log, "e", 0));
      sim.spawn(cond_waiter(cv, log, "c"));
      sim.run_until(10);
      CHECK(sim.live_processes() == 6);
      CHECK(sem.waiters() == 2);
    }
    CHECK(sem.waiters() == 0);  // the frames unlinked themselves
    CHECK(full.waiting_senders() == 0);
    CHECK(empty.waiting_receivers() == 0);
    CHECK(ev.waiters() == 0);
    CHECK(cv.waiters() == 0);
  }
  {
    Simulation sim(1);
    {
      Semaphore sem(0);
      Channel<std::string> ch(0);
      Event ev;
      Condition cv;
      sim.spawn(acquirer(sem, log, "s", 0, 1, -1));
      sim.spawn(event_waiter(ev, log, "e", 0));
      sim.spawn(cond_waiter(cv, log, "c"));
      sim.spawn(string_sender(ch));
      sim.run_until(10);
      CHECK(ch.waiting_senders() == 1);
    }  // primitives gone first; the frames still wait and are destroyed with sim
    CHECK(sim.live_processes() == 4);
  }
  CHECK(log.empty());
}

TEST_CASE("sync: cancelling a waiter on an event, a condition or a full channel") {
  Simulation sim(1);
  Event ev;
  Condition cv;
  Channel<int> ch(1);
  CHECK(ch.try_send(1));
  Log log;
  auto e = sim.spawn(cancel_watcher(event_task(ev), log, "E"));
  auto c = sim.spawn(cancel_watcher(cond_task(cv), log, "C"));
  auto s = sim.spawn(cancel_watcher(send_task(ch, 2), log, "S"));
  sim.run_until(5);
  CHECK(ev.waiters() == 1);
  CHECK(cv.waiters() == 1);
  CHECK(ch.waiting_senders() == 1);
  e.cancel();
  c.cancel();
  s.cancel();
  sim.run();
  CHECK(log == Log{"E cancelled@5", "C cancelled@5", "S cancelled@5"});
  CHECK(ev.waiters() == 0);
  CHECK(cv.waiters() == 0);
  CHECK(ch.waiting_senders() == 0);
  CHECK(ch.try_recv() == 1);
  CHECK_FALSE(ch.try_recv().has_value());  // the cancelled send delivered nothing
  CHECK_FALSE(cv.notify_one());
}
