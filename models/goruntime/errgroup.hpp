#pragma once
// golang.org/x/sync/errgroup driven by the simulator: the awaiters and goroutines around the
// scheduler-free components/errgroup state (semaphore channel, wait count, first error, context;
// x/sync @ec11c4a, docs/components.md), as the data plane uses it (domain.md §4).
//
//   errgroup::Group group(sim);                 // var group errgroup.Group (no limit, no ctx)
//   group.set_limit(50);                        // group.SetLimit(50) — the missing line
//   for (auto& uri : uris) {
//     auto task = [&mc, uri] { return get_post(mc, uri); };
//     co_await group.go(task);
//   }
//   errgroup::Error err = co_await group.wait();
//
// Coupling to the kernel is deliberately small: a task is a sim::Task<Error>; blocking uses a
// WakeToken; a new goroutine is started through a Launcher (a GoProcess passes one that counts
// goroutines; the default spawns a plain kernel process). Nothing here knows a model.
//
// GCC 12 pitfall (measured with ASan): a lambda with non-trivially-destructible captures
// (a std::string, a shared_ptr) written as a temporary inside a co_await expression is
// destroyed twice. Name it first: `auto task = [uri] {...}; co_await group.go(task);`.
//
// Go's group lives as long as a goroutine references it (garbage collection); here the Group
// is a handle to shared state that each running task also holds, so a handler frame that ends
// before its tasks (cancelled by a crash) never leaves them pointing at freed memory.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "components/errgroup/error.hpp"
#include "components/errgroup/group_state.hpp"
#include "components/errgroup/token_channel.hpp"
#include "sim/process.hpp"

namespace errgroup {

// What Go passes to group.Go: a function returning an error. Call it to get the (lazy) task.
using Func = std::function<sim::Task<Error>()>;
// Starts `body` as a new goroutine.
using Launcher = std::function<void(sim::Task<> body)>;

class Group {
 public:
  // The zero value: no limit, no context. Goroutines are plain kernel processes.
  explicit Group(sim::Simulation& sim);
  Group(sim::Simulation& sim, Launcher launch);
  // errgroup.WithContext: the returned group cancels `context()` on the first error.
  static Group with_context(sim::Simulation& sim, Launcher launch = {});

  // SetLimit: n < 0 unlimited (never throws), n == 0 every Go blocks forever. Throws (Go
  // panics) while the current semaphore holds tokens (goroutines started under this limit).
  void set_limit(std::int64_t n);

  struct GoAwaiter;
  // co_await group.go(f): blocks while `limit` goroutines are active (FIFO), then starts f.
  GoAwaiter go(Func f);
  // The same with the goroutine's body already made: a lazy task, so nothing of it runs before
  // a slot is free (as f() would be called then), and no std::function per goroutine (a
  // composed fan-out starts millions).
  GoAwaiter go(sim::Task<Error> body);
  // The same for a goroutine that is a process of its own (one coroutine frame for the
  // goroutine, its func and x/sync's wrapper): once a slot is free, `start(Member)` is called
  // and must start the goroutine, which ends with `co_await member.finish(err)`. `start` is
  // kept by value in the awaiter (no std::function per goroutine).
  template <class Start>
  struct GoMemberAwaiter;
  template <class Start>
  GoMemberAwaiter<Start> go_member(Start start);
  // `for i := range n { g.Go(f_i) }` by one caller, as go_member in a loop, except that a
  // member which gives its token to the blocked caller starts the caller's next goroutine
  // itself. In Go the caller is readied and runs `go f()` at that same instant; nothing of the
  // caller runs in between but making the next func, so its resume is not simulated: one event
  // less per goroutine (a composed fan-out starts millions). The caller resumes once all n are
  // started. `feed` has: `std::size_t count()`, `bool live()` (false once the caller's process
  // is gone: what is left is not started, and the caller resumes to unwind) and
  // `void start(std::size_t i, Member)`, which starts goroutine i as go_member's start does.
  // A caller cancelled, or whose feed is no longer live, unwinds with sim::Cancelled.
  template <class Feed>
  struct GoEachAwaiter;
  template <class Feed>
  GoEachAwaiter<Feed> go_each(Feed feed);
  // TryGo: starts f only if a slot is free now; never blocks.
  bool try_go(Func f);

  struct WaitAwaiter;
  // co_await group.wait(): waits for every started goroutine; returns the first error.
  WaitAwaiter wait();

  std::int64_t active() const;             // goroutines started and not yet done (wg)
  std::int64_t limit() const;              // -1 = unlimited
  std::int64_t blocked_callers() const;    // Go callers waiting for a token
  std::int64_t blocked_finishers() const;  // goroutines blocked giving their token back
  std::int64_t started() const;
  // Null for the zero value.
  std::shared_ptr<Context> context() const;

  struct State;

 private:
  Group(sim::Simulation& sim, Launcher launch, bool with_context);
  std::shared_ptr<State> state_;
};

// A Go caller or a finishing goroutine parked on the semaphore channel.
struct ParkedProcess final : errgroup::Parked {
  sim::Simulation* sim = nullptr;
  sim::WakeToken token;
  std::int64_t* blocked = nullptr;  // the group's count this party is in while parked
  bool is_granted = false;
  // Parked now by process `p`, counted in `count` until granted or withdrawn.
  void arm(sim::Simulation& s, sim::ProcState* p, std::int64_t& count) {
    sim = &s;
    token = sim::WakeToken{p, p->gen};
    blocked = &count;
    ++count;
  }
  void granted() override {
    is_granted = true;
    --*blocked;
    sim->wake(token);
  }
};

// A started goroutine's place in its group: what x/sync's wrapper does once f has returned
// (L36-41, L93-100: the first error kept, the token given back, wg.Done). The goroutine ends
// with `co_await member.finish(err)`; a goroutine unwound before that (cancelled, its process
// killed, a model bug) still leaves the group when its Member is destroyed: the token back,
// done(), never waiting for a token (the deferred done of a goroutine that panicked).
class Member {
 public:
  explicit Member(std::shared_ptr<Group::State> s) : s_(std::move(s)) {}
  Member(Member&& o) noexcept : s_(std::move(o.s_)), finished_(o.finished_) {}
  Member& operator=(Member&&) = delete;
  ~Member();

  struct Finish;
  Finish finish(Error err);

 private:
  void leave();  // wg.Done, once

  std::shared_ptr<Group::State> s_;
  bool finished_ = false;
};

struct Group::State {
  explicit State(bool with_context) : core(with_context) {}
  sim::Simulation* sim = nullptr;
  Launcher launch;
  GroupState core;
  std::int64_t blocked = 0;
  std::int64_t blocked_finishers = 0;
  sim::IntrusiveList<sim::Waiter> wait_waiters;

  void start(std::shared_ptr<State> self, Func f);
  void start(std::shared_ptr<State> self, sim::Task<Error> body);
  // The goroutine has given its token back: wg.Done, and wake Wait callers at zero.
  void done();
};

// `<-g.sem` at the end of a member goroutine (x/sync's done()): usually a token is there to
// take; when not (a SetLimit installed after this goroutine started), it waits for the next
// send.
struct Member::Finish {
  Member* m;
  Error err;
  std::shared_ptr<TokenChannel> sem;
  ParkedProcess w;
  sim::ProcState* p = nullptr;
  bool parked = false;

  Finish(Member& member, Error e) : m(&member), err(std::move(e)) {}
  Finish(const Finish&) = delete;
  ~Finish() { withdraw(); }  // destroyed while parked: its process was killed
  bool await_ready();
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!sim::park(h, p)) return false;
    park();
    return true;
  }
  void await_resume();

 private:
  void park();
  void withdraw();
};

// The Go caller's `g.sem <- token{}` (x/sync L73-75), then Derived::on_token() starts the
// goroutine: the one semaphore protocol of go(f), go(task) and go_member(start).
template <class Derived>
struct SemaphoreSend {
  std::shared_ptr<Group::State> s;
  std::shared_ptr<TokenChannel> sem;  // the semaphore at the time of the call
  ParkedProcess w;
  sim::ProcState* p = nullptr;

  explicit SemaphoreSend(std::shared_ptr<Group::State> state) : s(std::move(state)) {}
  SemaphoreSend(const SemaphoreSend&) = delete;
  void start() { static_cast<Derived*>(this)->on_token(); }

  bool await_ready() {
    sem = s->core.semaphore();
    if (sem && !sem->try_send()) {
      return false;
    }
    start();
    return true;
  }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!sim::park(h, p)) {
      return false;
    }
    w.arm(*s->sim, p, s->blocked);
    sem->park_sender(w);
    return true;
  }
  void await_resume() {
    if (p == nullptr) {
      return;  // started in await_ready
    }
    if (!w.is_granted) {
      if (sem->withdraw(w)) {
        --s->blocked;
      }
      sim::throw_if_cancelled(p);
      return;
    }
    if (p->cancel_requested) {
      sem->try_receive();  // give back the token we were granted, then unwind
      sim::throw_if_cancelled(p);
    }
    start();
  }
};

struct Group::GoAwaiter : SemaphoreSend<Group::GoAwaiter> {
  Func f;
  std::optional<sim::Task<Error>> body;  // go(Task): the body, made already (f is empty)

  GoAwaiter(std::shared_ptr<State> state, Func func, std::optional<sim::Task<Error>> task)
      : SemaphoreSend(std::move(state)), f(std::move(func)), body(std::move(task)) {}
  void on_token() {
    if (body) {
      s->start(s, std::move(*body));
    } else {
      s->start(s, std::move(f));
    }
  }
};

template <class Start>
struct Group::GoMemberAwaiter : SemaphoreSend<Group::GoMemberAwaiter<Start>> {
  Start start_goroutine;

  GoMemberAwaiter(std::shared_ptr<State> state, Start st)
      : SemaphoreSend<GoMemberAwaiter>(std::move(state)), start_goroutine(std::move(st)) {}
  void on_token() {
    this->s->core.add();
    start_goroutine(Member(this->s));
  }
};

template <class Start>
Group::GoMemberAwaiter<Start> Group::go_member(Start start) {
  return GoMemberAwaiter<Start>(state_, std::move(start));
}

// The caller's sends, one parked party for all of them: granted() is the member's `<-g.sem`
// handing the caller a token, and starts the next goroutine there.
template <class Feed>
struct Group::GoEachAwaiter final : Parked {
  std::shared_ptr<State> s;
  Feed feed;
  std::shared_ptr<TokenChannel> sem;
  std::size_t next = 0;
  sim::ProcState* p = nullptr;
  sim::WakeToken token;
  bool parked = false;
  bool token_unused = false;  // granted after the caller's process was gone

  GoEachAwaiter(std::shared_ptr<State> state, Feed f) : s(std::move(state)), feed(std::move(f)) {}
  GoEachAwaiter(const GoEachAwaiter&) = delete;
  ~GoEachAwaiter() {  // destroyed parked or woken: its process was killed
    withdraw();
    if (token_unused && !s->sim->shutting_down()) give_back();
  }

  bool await_ready() {
    sem = s->core.semaphore();
    return send_while_free();
  }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!sim::park(h, p)) return false;
    token = sim::WakeToken{p, p->gen};
    park();
    return true;
  }
  void await_resume() {
    withdraw();
    if (token_unused) {
      give_back();
      throw sim::Cancelled{};  // the caller's process is gone: unwind, as its kill would
    }
    if (p != nullptr) sim::throw_if_cancelled(p);
  }
  void granted() override {
    parked = false;
    --s->blocked;
    if (p->cancel_requested || !feed.live()) {
      token_unused = true;
      s->sim->wake(token);
      return;
    }
    start_next();
    if (!send_while_free()) {
      park();
      return;
    }
    s->sim->wake(token);
  }

 private:
  // Sends and starts while a token goes in at once; true when all are started.
  bool send_while_free() {
    const std::size_t n = feed.count();
    while (next < n) {
      if (sem && !sem->try_send()) return false;
      start_next();
    }
    return true;
  }
  void start_next() {
    s->core.add();
    feed.start(next++, Member(s));
  }
  void park() {
    ++s->blocked;
    sem->park_sender(*this);
    parked = true;
  }
  void withdraw() {
    if (parked && sem->withdraw(*this)) --s->blocked;
    parked = false;
  }
  void give_back() {  // as a cancelled go_member gives back the token it was granted
    token_unused = false;
    sem->try_receive();
  }
};

template <class Feed>
Group::GoEachAwaiter<Feed> Group::go_each(Feed feed) {
  return GoEachAwaiter<Feed>(state_, std::move(feed));
}

struct Group::WaitAwaiter {
  std::shared_ptr<State> s;
  sim::Waiter w;
  sim::ProcState* p = nullptr;

  bool await_ready() const { return s->core.active() == 0; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!sim::park(h, p)) {
      return false;
    }
    w.token = sim::WakeToken{p, p->gen};
    s->wait_waiters.push_back(w);
    return true;
  }
  Error await_resume() {
    w.unlink();
    if (p != nullptr) {
      sim::throw_if_cancelled(p);
    }
    return s->core.finish_wait();
  }
};

}  // namespace errgroup
