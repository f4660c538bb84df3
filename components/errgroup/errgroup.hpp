#pragma once
// golang.org/x/sync/errgroup, as the data plane uses it (domain.md §4, read from golang/sync
// @ec11c4a): the very semantics the April 2026 handler relied on, driven by the simulator.
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
#include <string>
#include <utility>

#include "sim/process.hpp"

namespace errgroup {

// Go's `error`: the empty value is nil.
class Error {
 public:
  Error() = default;
  explicit Error(std::string text);
  bool is_nil() const { return text_.empty(); }
  explicit operator bool() const { return !text_.empty(); }
  const std::string& text() const { return text_; }
  friend bool operator==(const Error&, const Error&) = default;

 private:
  std::string text_;
};

// What Go passes to group.Go: a function returning an error. Call it to get the (lazy) task.
using Func = std::function<sim::Task<Error>()>;
// Starts `body` as a new goroutine.
using Launcher = std::function<void(sim::Task<> body)>;

// The derived context of WithContext: cancelled with the first error, or when Wait returns.
class Context {
 public:
  bool cancelled() const { return cancelled_; }
  // context.Cause: the first error, or "context canceled" when Wait returned without one.
  const Error& cause() const { return cause_; }
  void cancel(const Error& cause);

 private:
  bool cancelled_ = false;
  Error cause_;
};

class Group {
 public:
  // The zero value: no limit, no context. Goroutines are plain kernel processes.
  explicit Group(sim::Simulation& sim);
  Group(sim::Simulation& sim, Launcher launch);
  // errgroup.WithContext: the returned group cancels `context()` on the first error.
  static Group with_context(sim::Simulation& sim, Launcher launch = {});

  // SetLimit: n < 0 unlimited, n == 0 every Go blocks forever. Throws (Go panics) while
  // goroutines are active.
  void set_limit(std::int64_t n);

  struct GoAwaiter;
  // co_await group.go(f): blocks while `limit` goroutines are active (FIFO), then starts f.
  GoAwaiter go(Func f);
  // TryGo: starts f only if a slot is free now; never blocks.
  bool try_go(Func f);

  struct WaitAwaiter;
  // co_await group.wait(): waits for every started goroutine; returns the first error.
  WaitAwaiter wait();

  std::int64_t active() const;
  std::int64_t limit() const;            // -1 = unlimited
  std::int64_t blocked_callers() const;  // Go callers waiting for a slot
  std::int64_t started() const;
  // Null for the zero value.
  std::shared_ptr<Context> context() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

struct SlotWaiter : sim::Waiter {
  bool granted = false;
};

struct Group::State {
  sim::Simulation* sim = nullptr;
  Launcher launch;
  std::int64_t limit = -1;
  std::int64_t active = 0;
  std::int64_t started = 0;
  std::int64_t blocked = 0;
  sim::IntrusiveList<SlotWaiter> go_waiters;
  // Callers blocked on a semaphore that SetLimit replaced: like Go, they are never woken.
  sim::IntrusiveList<SlotWaiter> orphaned_waiters;
  sim::IntrusiveList<sim::Waiter> wait_waiters;
  Error first_error;
  bool has_error = false;
  std::shared_ptr<Context> ctx;

  bool slot_free() const { return limit < 0 || active < limit; }
  void start(std::shared_ptr<State> self, Func f, bool slot_reserved);
  void finished(const Error& err);
};

struct Group::GoAwaiter {
  std::shared_ptr<State> s;
  Func f;
  SlotWaiter w;
  sim::ProcState* p = nullptr;

  bool await_ready() {
    if (!s->slot_free()) {
      return false;
    }
    s->start(s, std::move(f), false);
    return true;
  }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!sim::detail::park(h, p)) {
      return false;
    }
    w.token = sim::WakeToken{p, p->gen};
    ++s->blocked;
    s->go_waiters.push_back(w);
    return true;
  }
  void await_resume() {
    if (p == nullptr) {
      return;  // started in await_ready
    }
    if (!w.granted) {
      if (w.linked()) {
        w.unlink();
        --s->blocked;
      }
      sim::detail::throw_if_cancelled(p);
      return;
    }
    if (p->cancel_requested) {
      s->finished(Error{});  // give back the slot reserved for us, then unwind
      sim::detail::throw_if_cancelled(p);
    }
    s->start(s, std::move(f), true);  // the slot was reserved when we were woken
  }
};

struct Group::WaitAwaiter {
  std::shared_ptr<State> s;
  sim::Waiter w;
  sim::ProcState* p = nullptr;

  bool await_ready() const { return s->active == 0; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!sim::detail::park(h, p)) {
      return false;
    }
    w.token = sim::WakeToken{p, p->gen};
    s->wait_waiters.push_back(w);
    return true;
  }
  Error await_resume() {
    w.unlink();
    if (p != nullptr) {
      sim::detail::throw_if_cancelled(p);
    }
    if (s->ctx) {
      s->ctx->cancel(s->has_error ? s->first_error : Error("context canceled"));
    }
    return s->first_error;
  }
};

}  // namespace errgroup
