#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/process.hpp"

using namespace sim;

namespace {

Process sleeper(std::vector<std::string>& log, std::string name, Duration d, int times) {
  for (int i = 0; i < times; ++i) {
    co_await sim::sleep(d);
    ProcState& me = co_await this_process();
    log.push_back(name + "@" + std::to_string(me.sim->now()));
  }
}

Task<int> add_later(int a, int b, Duration d) {
  co_await sim::sleep(d);
  co_return a + b;
}

Task<int> nested(Duration d) {
  int x = co_await add_later(1, 2, d);
  int y = co_await add_later(x, 10, d);
  co_return y;
}

Process uses_task(int& out, Duration d) { out = co_await nested(d); }

Process thrower() {
  co_await sim::sleep(5);
  throw std::runtime_error("model bug");
}

Process joiner(ProcessHandle target, std::vector<std::string>& log) {
  co_await target.join();
  ProcState& me = co_await this_process();
  log.push_back("joined@" + std::to_string(me.sim->now()));
}

Process cancellable(bool& reached_end, bool& saw_cancel) {
  try {
    co_await sim::sleep(kSecond);
    reached_end = true;
  } catch (const Cancelled&) {
    saw_cancel = true;
    throw;
  }
}

struct Counter : Handler {
  int fired = 0;
  void on_event(Simulation& sim) override {
    if (++fired < 3) sim.schedule_in(10, *this);
  }
};

}  // namespace

TEST_CASE("processes sleep and interleave in time order, FIFO at equal times") {
  Simulation sim(1);
  std::vector<std::string> log;
  sim.spawn(sleeper(log, "a", 10, 2));
  sim.spawn(sleeper(log, "b", 10, 2));
  sim.spawn(sleeper(log, "c", 15, 1));
  sim.run();
  CHECK(log == std::vector<std::string>{"a@10", "b@10", "c@15", "a@20", "b@20"});
  CHECK(sim.live_processes() == 0);
}

TEST_CASE("nested tasks return values through the same process") {
  Simulation sim(1);
  int out = 0;
  sim.spawn(uses_task(out, 7));
  sim.run();
  CHECK(out == 13);
  CHECK(sim.now() == 14);
}

TEST_CASE("an exception escaping a process stops the run") {
  Simulation sim(1);
  sim.spawn(thrower());
  CHECK_THROWS_WITH(sim.run(), "model bug");
}

TEST_CASE("join waits for completion; cancel interrupts a waiting process") {
  Simulation sim(1);
  std::vector<std::string> log;
  auto h = sim.spawn(sleeper(log, "s", 100, 1));
  sim.spawn(joiner(h, log));
  sim.run();
  CHECK(log == std::vector<std::string>{"s@100", "joined@100"});

  bool end = false, cancelled = false;
  auto c = sim.spawn(cancellable(end, cancelled));
  sim.run_until(sim.now() + 10);
  c.cancel();
  sim.run();
  CHECK(c.done());
  CHECK_FALSE(end);
  CHECK(cancelled);
}

TEST_CASE("handlers run on the callback path and count in the fingerprint") {
  Simulation a(1), b(1);
  Counter ca, cb;
  a.schedule_at(5, ca);
  b.schedule_at(5, cb);
  a.run();
  b.run();
  CHECK(ca.fired == 3);
  CHECK(a.events_executed() == 3);
  CHECK(a.fingerprint() == b.fingerprint());
  CHECK(a.now() == 25);
}

TEST_CASE("destroying a simulation with processes mid-wait leaks nothing") {
  std::vector<std::string> log;
  {
    Simulation sim(1);
    for (int i = 0; i < 100; ++i) sim.spawn(sleeper(log, "x", kSecond, 1000));
    sim.run_until(5 * kSecond);
    CHECK(sim.live_processes() == 100);
  }  // ASan reports any frame left behind
  CHECK(log.size() == 500);
}
