#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/goruntime/errgroup.hpp"

using namespace sim;
using errgroup::Error;
using errgroup::Group;

namespace {

struct Probe {
  Simulation* sim = nullptr;
  int running = 0;
  int peak = 0;
  std::vector<std::string> log;  // "start i@t" / "end i@t"
};

Task<Error> work(Probe& pr, int i, Duration d, std::string fail) {
  ++pr.running;
  pr.peak = std::max(pr.peak, pr.running);
  pr.log.push_back("start " + std::to_string(i) + "@" + std::to_string(pr.sim->now()));
  co_await sim::sleep(d);
  --pr.running;
  pr.log.push_back("end " + std::to_string(i) + "@" + std::to_string(pr.sim->now()));
  if (!fail.empty()) {
    co_return Error(fail);
  }
  co_return Error{};
}

// The handler shape of the April post-mortem: one goroutine per item, then Wait.
Process fan_out(Group& g, Probe& pr, int n, Duration d, std::vector<std::string> fails, Error& out,
                Time& producer_done) {
  for (int i = 0; i < n; ++i) {
    std::string f = i < static_cast<int>(fails.size()) ? fails[i] : std::string{};
    auto task = [&pr, i, d, f] { return work(pr, i, d, f); };  // named: see errgroup.hpp
    co_await g.go(task);
  }
  producer_done = pr.sim->now();
  out = co_await g.wait();
}

}  // namespace

TEST_CASE("zero-value group: Go never blocks, every item runs at once, Wait waits for all") {
  Simulation sim(1);
  Probe pr;
  pr.sim = &sim;
  Group g(sim);
  Error err;
  Time producer_done = -1;
  sim.spawn(fan_out(g, pr, 1000, 10 * kMillisecond, {}, err, producer_done));
  sim.run();
  CHECK(producer_done == 0);
  CHECK(pr.peak == 1000);
  CHECK(err.is_nil());
  CHECK(sim.now() == 10 * kMillisecond);
  CHECK(g.active() == 0);
  CHECK(g.started() == 1000);
}

TEST_CASE("SetLimit(n) blocks the producer: at most n active, FIFO hand-over of slots") {
  Simulation sim(1);
  Probe pr;
  pr.sim = &sim;
  Group g(sim);
  g.set_limit(3);
  Error err;
  Time producer_done = -1;
  sim.spawn(fan_out(g, pr, 10, kSecond, {}, err, producer_done));
  sim.run();
  CHECK(pr.peak == 3);
  // ceil(10/3) = 4 waves of 1 s; the producer is released when the 10th item gets a slot.
  CHECK(sim.now() == 4 * kSecond);
  CHECK(producer_done == 3 * kSecond);
  // Items start in the order the producer offered them.
  std::vector<std::string> starts;
  for (const auto& l : pr.log) {
    if (l.rfind("start", 0) == 0) {
      starts.push_back(l.substr(6, l.find('@') - 6));
    }
  }
  CHECK(starts == std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"});
}

namespace {
// fan_out, each goroutine's body made before its Go call (group.go(Task)): nothing of it may
// run before the call gets a slot.
Process fan_out_tasks(Group& g, Probe& pr, int n, Duration d, Time& producer_done) {
  for (int i = 0; i < n; ++i) {
    Task<Error> body = work(pr, i, d, "");
    co_await g.go(std::move(body));
  }
  producer_done = pr.sim->now();
  co_await g.wait();
}
}  // namespace

TEST_CASE("Go with a body already made: the same waves as Go(f), the body lazy until its slot") {
  Simulation sim(1);
  Probe pr;
  pr.sim = &sim;
  Group g(sim);
  g.set_limit(3);
  Time producer_done = -1;
  sim.spawn(fan_out_tasks(g, pr, 10, kSecond, producer_done));
  sim.run_until(kMillisecond);
  CHECK(pr.running == 3);  // the 4th body exists, blocked in Go, and has not started
  CHECK(pr.log.size() == 3);
  sim.run();
  CHECK(pr.peak == 3);
  CHECK(sim.now() == 4 * kSecond);
  CHECK(producer_done == 3 * kSecond);
  CHECK(pr.log.front() == "start 0@0");
  CHECK(pr.log.back() == "end 9@" + std::to_string(4 * kSecond));
}

TEST_CASE("a cancelled Go caller's unstarted body is destroyed, never run") {
  Simulation sim(1);
  Probe pr;
  pr.sim = &sim;
  Group g(sim);
  g.set_limit(1);
  Time producer_done = -1;
  auto h = sim.spawn(fan_out_tasks(g, pr, 5, kSecond, producer_done));
  sim.run_until(kMillisecond);
  CHECK(g.blocked_callers() == 1);
  h.cancel();
  sim.run();
  CHECK(h.done());
  CHECK(g.started() == 1);
  CHECK(pr.log == std::vector<std::string>{"start 0@0", "end 0@" + std::to_string(kSecond)});
}

TEST_CASE("Wait returns the first error; without a context the other items still run") {
  Simulation sim(1);
  Probe pr;
  pr.sim = &sim;
  Group g(sim);
  Error err;
  Time producer_done = -1;
  // Item 0 fails at 10 ms; item 1 fails later; all 5 must still run to completion.
  sim.spawn(fan_out(g, pr, 5, 10 * kMillisecond, {"first", "second"}, err, producer_done));
  sim.run();
  CHECK(err.text() == "first");
  int ends = 0;
  for (const auto& l : pr.log) {
    ends += l.rfind("end", 0) == 0 ? 1 : 0;
  }
  CHECK(ends == 5);
  CHECK(g.context() == nullptr);
}

namespace {
Task<Error> fail_after(Duration d) {
  co_await sim::sleep(d);
  co_return Error("memcache: connect timeout");
}
Task<Error> poll_ctx(std::shared_ptr<errgroup::Context> ctx, Simulation& sim, Time& saw_cancel) {
  while (!ctx->cancelled()) {
    co_await sim::sleep(kMillisecond);
  }
  saw_cancel = sim.now();
  co_return Error{};
}
Process ctx_user(Group& g, Simulation& sim, Time& saw, Error& out) {
  auto ctx = g.context();
  co_await g.go([] { return fail_after(5 * kMillisecond); });
  auto poller = [ctx, &sim, &saw] { return poll_ctx(ctx, sim, saw); };
  co_await g.go(poller);
  out = co_await g.wait();
}
Process wait_only(Group& g, Error& out, bool& done) {
  out = co_await g.wait();
  done = true;
}
}  // namespace

TEST_CASE("WithContext cancels the context on the first error and when Wait returns") {
  Simulation sim(1);
  Group g = Group::with_context(sim);
  Time saw = -1;
  Error err;
  sim.spawn(ctx_user(g, sim, saw, err));
  sim.run();
  CHECK(saw == 5 * kMillisecond);
  CHECK(err.text() == "memcache: connect timeout");
  CHECK(g.context()->cause().text() == "memcache: connect timeout");

  Group quiet = Group::with_context(sim);
  Error e2;
  bool done = false;
  sim.spawn(wait_only(quiet, e2, done));
  sim.run();
  CHECK(done);
  CHECK(e2.is_nil());
  CHECK(quiet.context()->cancelled());  // Wait returning cancels it too
  CHECK(quiet.context()->cause().text() == "context canceled");
}

namespace {
Task<Error> idle_for(Duration d) {
  co_await sim::sleep(d);
  co_return Error{};
}
}  // namespace

TEST_CASE("TryGo starts only when a slot is free and never blocks") {
  Simulation sim(1);
  Group g(sim);
  g.set_limit(2);
  CHECK(g.try_go([] { return idle_for(kSecond); }));
  CHECK(g.try_go([] { return idle_for(kSecond); }));
  CHECK_FALSE(g.try_go([] { return idle_for(kSecond); }));
  CHECK(g.active() == 2);
  sim.run();
  CHECK(g.active() == 0);
  CHECK(g.try_go([] { return idle_for(kSecond); }));
  sim.run();
}

namespace {
Process producer(Group& g, int n, int& offered) {
  for (int i = 0; i < n; ++i) {
    co_await g.go([] { return idle_for(kSecond); });
    ++offered;
  }
}
}  // namespace

TEST_CASE("SetLimit panics only while the current semaphore holds tokens (x/sync L142-151)") {
  Simulation sim(1);
  Group g(sim);
  g.set_limit(2);
  CHECK(g.try_go([] { return idle_for(kSecond); }));
  CHECK_THROWS_WITH(g.set_limit(5),
                    "errgroup: modify limit while 1 goroutines in the group are "
                    "still active");
  g.set_limit(-7);  // n < 0 never panics, even now
  CHECK(g.limit() == -1);
  sim.run();  // the goroutine ends with no semaphore: it gives nothing back, wg reaches 0
  CHECK(g.active() == 0);
  g.set_limit(5);
  CHECK(g.limit() == 5);

  Group never(sim);
  never.set_limit(0);
  int offered = 0;
  sim.spawn(producer(never, 3, offered));
  sim.run_until(sim.now() + kHour);
  CHECK(offered == 0);
  CHECK(never.blocked_callers() == 1);
  CHECK(never.active() == 0);
  // A new limit does not release callers blocked on the old semaphore (Go swaps the channel).
  never.set_limit(10);
  sim.run_until(sim.now() + kHour);
  CHECK(offered == 0);
}

namespace {
Process wait_for(Group& g, bool& returned) {
  co_await g.wait();
  returned = true;
}
}  // namespace

TEST_CASE("a goroutine started before SetLimit takes its token from the new semaphore") {
  // x/sync's done() receives from g.sem as it is when the goroutine ends (L36-41). Started
  // with no limit, then SetLimit(1) (no panic: len(nil) == 0): at the end it blocks on the empty
  // new channel, so Wait does not return — until a Go sends a token, which it takes directly.
  Simulation sim(1);
  Group g(sim);
  CHECK(g.try_go([] { return idle_for(kSecond); }));
  g.set_limit(1);  // no panic
  bool returned = false;
  sim.spawn(wait_for(g, returned));
  sim.run_until(kHour);
  CHECK_FALSE(returned);
  CHECK(g.active() == 1);
  CHECK(g.blocked_finishers() == 1);
  CHECK(g.try_go([] { return idle_for(kSecond); }));  // handed to the blocked finisher
  CHECK(g.blocked_finishers() == 0);
  sim.run_until(2 * kHour);
  CHECK(g.started() == 2);
  // The second goroutine's token went to the first one, so at its own end the channel is empty
  // again and it blocks in turn: Wait still has not returned.
  CHECK_FALSE(returned);
  CHECK(g.active() == 1);
  CHECK(g.blocked_finishers() == 1);
}

TEST_CASE("a blocked Go caller that is cancelled leaves the group consistent") {
  Simulation sim(1);
  Group g(sim);
  g.set_limit(1);
  int offered = 0;
  auto h = sim.spawn(producer(g, 5, offered));
  sim.run_until(kMillisecond);
  CHECK(offered == 1);
  CHECK(g.blocked_callers() == 1);
  h.cancel();
  sim.run();
  CHECK(h.done());
  CHECK(g.blocked_callers() == 0);
  CHECK(g.active() == 0);
  CHECK(g.started() == 1);
}

namespace {
// A member goroutine written as a process of its own (go_member): the body's steps and
// x/sync's wrapper in one frame, as the go-service's errgroup step runs them.
Process member_goroutine(errgroup::Member joined, Probe& pr, int i, Duration d, std::string fail) {
  errgroup::Member member = std::move(joined);
  Error err = co_await work(pr, i, d, std::move(fail));
  co_await member.finish(std::move(err));
}

struct StartMember {
  Probe* pr;
  int i;
  Duration d;
  std::string fail;
  std::vector<ProcessHandle>* started;
  void operator()(errgroup::Member m) {
    started->push_back(pr->sim->spawn(member_goroutine(std::move(m), *pr, i, d, fail)));
  }
};

Process fan_out_members(Group& g, Probe& pr, int n, Duration d, std::vector<std::string> fails,
                        Error& out, Time& producer_done, std::vector<ProcessHandle>& started) {
  for (int i = 0; i < n; ++i) {
    std::string f = i < static_cast<int>(fails.size()) ? fails[i] : std::string{};
    StartMember start{&pr, i, d, f, &started};  // named: see errgroup.hpp
    co_await g.go_member(std::move(start));
  }
  producer_done = pr.sim->now();
  out = co_await g.wait();
}
}  // namespace

// One limited group, its producer's results, and the member processes it started.
struct MemberRun {
  Simulation sim{1};
  Probe pr;
  Group g{sim};
  Error err;
  Time producer_done = -1;
  std::vector<ProcessHandle> started;
  explicit MemberRun(std::int64_t limit) {
    pr.sim = &sim;
    g.set_limit(limit);
  }
  void fan_out_members(int n, Duration d, std::vector<std::string> fails) {
    sim.spawn(::fan_out_members(g, pr, n, d, std::move(fails), err, producer_done, started));
  }
};

TEST_CASE("go_member: a goroutine that is its own process makes the same waves as Go(f)") {
  for (const bool members : {false, true}) {
    MemberRun r(3);
    const std::vector<std::string> fails{"", "first", "", "", "second"};
    if (members) {
      r.fan_out_members(10, kSecond, fails);
    } else {
      r.sim.spawn(fan_out(r.g, r.pr, 10, kSecond, fails, r.err, r.producer_done));
    }
    r.sim.run();
    INFO("members " << members);
    CHECK(r.pr.peak == 3);
    CHECK(r.sim.now() == 4 * kSecond);  // ceil(10/3) waves of 1 s
    CHECK(r.producer_done == 3 * kSecond);
    CHECK(r.err.text() == "first");
    CHECK(r.g.active() == 0);
    CHECK(r.g.started() == 10);
    CHECK(r.pr.log.front() == "start 0@0");
    CHECK(r.pr.log.back() == "end 9@" + std::to_string(4 * kSecond));
    CHECK(r.started.size() == (members ? 10u : 0u));
  }
}

namespace {
// go_each's feed for the same members: goroutine i as StartMember starts it, while `live`.
struct MemberFeed {
  Probe* pr;
  int n;
  Duration d;
  std::vector<std::string> fails;
  std::vector<ProcessHandle>* started;
  const bool* live_flag;
  std::size_t count() const { return static_cast<std::size_t>(n); }
  bool live() const { return *live_flag; }
  void start(std::size_t i, errgroup::Member m) {
    const std::string f = i < fails.size() ? fails[i] : std::string{};
    StartMember{pr, static_cast<int>(i), d, f, started}(std::move(m));
  }
};
Process fan_out_each(Group& g, MemberFeed feed, Error& out, Time& producer_done) {
  auto each = g.go_each(std::move(feed));  // named: see errgroup.hpp
  co_await each;
  producer_done = feed.pr->sim->now();
  out = co_await g.wait();
}
}  // namespace

TEST_CASE("go_each: the waves of a go_member loop, without the caller's resume per goroutine") {
  const std::vector<std::string> fails{"", "first", "", "", "second"};
  MemberRun loop(3);
  loop.fan_out_members(10, kSecond, fails);
  loop.sim.run();

  MemberRun each(3);
  const bool live = true;
  each.sim.spawn(fan_out_each(each.g, MemberFeed{&each.pr, 10, kSecond, fails, &each.started, &live},
                              each.err, each.producer_done));
  each.sim.run();
  CHECK(each.pr.log == loop.pr.log);  // the same goroutines at the same instants
  CHECK(each.producer_done == loop.producer_done);
  CHECK(each.producer_done == 3 * kSecond);
  CHECK(each.err.text() == "first");
  CHECK(each.g.active() == 0);
  CHECK(each.g.started() == 10);
  CHECK(each.g.blocked_callers() == 0);
  CHECK(each.pr.peak == 3);
  // The loop's caller resumes once per wave after the first (its first grant wakes it; by
  // then the wave's other members have freed their slots, and it starts them all): 3 here.
  // go_each's caller resumes once, when the last is started. (A fan-out whose replies come
  // back at different instants frees one slot per wake: one resume saved per goroutine.)
  CHECK(loop.sim.events_executed() - each.sim.events_executed() == 3 - 1);
}

TEST_CASE("go_each: a caller killed while it waits starts nothing more; the group goes on") {
  MemberRun r(2);
  const bool live = true;
  ProcessHandle caller = r.sim.spawn(fan_out_each(
      r.g, MemberFeed{&r.pr, 6, kSecond, {}, &r.started, &live}, r.err, r.producer_done));
  r.sim.run_until(kMillisecond);
  REQUIRE(r.started.size() == 2);
  CHECK(r.g.blocked_callers() == 1);
  caller.kill();  // the awaiter withdraws from the semaphore channel
  r.sim.run_until(2 * kMillisecond);
  CHECK(r.g.blocked_callers() == 0);
  r.sim.run();
  CHECK(r.started.size() == 2);
  CHECK(r.g.active() == 0);
  CHECK(r.producer_done == -1);
  // The tokens came back: a new caller gets both slots at once.
  const bool still = true;
  std::vector<ProcessHandle> more;
  Error err;
  Time done = -1;
  r.sim.spawn(fan_out_each(r.g, MemberFeed{&r.pr, 2, kSecond, {}, &more, &still}, err, done));
  r.sim.run();
  CHECK(done == kSecond);  // both started at 1 s (the first two ended then), none waited
  CHECK(more.size() == 2);
}

TEST_CASE("go_each: once the caller's process is gone, a granted slot starts nothing") {
  // The go-service's feed is not live once its Go process crashed: a member unwinding then
  // gives its token to the waiting caller, which must not start a goroutine in a dead process.
  MemberRun r(1);
  bool live = true;
  ProcessHandle caller = r.sim.spawn(fan_out_each(
      r.g, MemberFeed{&r.pr, 3, kSecond, {}, &r.started, &live}, r.err, r.producer_done));
  r.sim.run_until(kMillisecond);
  REQUIRE(r.started.size() == 1);
  live = false;  // the member's end at 1 s grants the caller a token it must not use
  r.sim.run();
  CHECK(r.started.size() == 1);
  CHECK(r.g.active() == 0);
  CHECK(r.g.blocked_callers() == 0);
  CHECK(r.producer_done == -1);  // the caller unwound at its go_each (sim::Cancelled)
  CHECK(caller.done());
  const bool still = true;
  std::vector<ProcessHandle> more;
  Error err;
  Time done = -1;
  r.sim.spawn(fan_out_each(r.g, MemberFeed{&r.pr, 1, kSecond, {}, &more, &still}, err, done));
  r.sim.run();
  CHECK(more.size() == 1);  // the token the caller was granted came back
}

TEST_CASE("a member goroutine killed mid-body still leaves the group: its slot goes on") {
  for (const bool kill : {false, true}) {
    MemberRun r(1);
    r.fan_out_members(3, kHour, {});
    r.sim.run_until(kSecond);
    REQUIRE(r.started.size() == 1);
    CHECK(r.g.blocked_callers() == 1);
    if (kill) {
      r.started[0].kill();  // frames destroyed without resuming: ~Member gives the token back
    } else {
      r.started[0].cancel();  // unwound by sim::Cancelled at its sleep
    }
    r.sim.run_until(2 * kSecond);
    INFO((kill ? "killed" : "cancelled"));
    CHECK(r.started.size() == 2);  // the producer got the slot the first one held
    CHECK(r.g.active() == 1);
    r.sim.run();
    CHECK(r.g.active() == 0);
    CHECK(r.g.started() == 3);
    CHECK(r.producer_done == kSecond + kHour);  // the third waits for the second's hour
    CHECK(r.sim.now() == kSecond + 2 * kHour);
    CHECK(r.err.is_nil());  // an unwound goroutine returned no error
  }
}

namespace {
Process lone_member(errgroup::Member joined, Duration d) {
  errgroup::Member member = std::move(joined);
  co_await sim::sleep(d);
  co_await member.finish(Error{});
}
struct StartLone {
  Simulation* sim;
  std::vector<ProcessHandle>* started;
  void operator()(errgroup::Member m) { started->push_back(sim->spawn(lone_member(std::move(m), kSecond))); }
};
Process go_lone(Group& g, Simulation& sim, std::vector<ProcessHandle>& started) {
  StartLone start{&sim, &started};
  co_await g.go_member(std::move(start));
}
}  // namespace

TEST_CASE("a member blocked giving its token back, then killed, leaves the group") {
  // Started with no limit, then SetLimit(1): at its end the new channel is empty and the member
  // blocks in finish() (x/sync's done(), as the Go(f) test above). Killed there, it withdraws
  // from the channel and the group is done with it: Wait returns.
  Simulation sim(1);
  Group g(sim);
  std::vector<ProcessHandle> started;
  sim.spawn(go_lone(g, sim, started));
  sim.run_until(kMillisecond);
  REQUIRE(started.size() == 1);
  g.set_limit(1);
  bool returned = false;
  sim.spawn(wait_for(g, returned));
  sim.run_until(kHour);
  CHECK(g.blocked_finishers() == 1);
  CHECK_FALSE(returned);
  started[0].kill();
  sim.run();
  CHECK(g.blocked_finishers() == 0);
  CHECK(g.active() == 0);
  CHECK(returned);
  CHECK(g.try_go([] { return idle_for(kSecond); }));  // the channel holds no stale party
}

TEST_CASE("bad input is refused with a message") {
  Simulation sim(1);
  Group g(sim);
  CHECK_THROWS_WITH(g.try_go(errgroup::Func{}), "errgroup: TryGo called with an empty function");
  CHECK_THROWS_WITH(Error(""), "errgroup::Error: a non-nil error needs a message");
}
