#pragma once
// Processes as C++20 coroutines, so a simulated goroutine reads like the Go it stands for:
//
//   sim::Process handle_uri(Client& mc, std::string uri) {
//     co_await sim::sleep(600 * sim::kMicrosecond);
//     auto item = co_await mc.get(uri);   // a sim::Task<...>
//   }
//   sim.spawn(handle_uri(mc, uri), "goroutine");
//
// Rules (after FoundationDB's): no capturing lambdas as coroutines (the captures die with the
// lambda object); never swallow sim::Cancelled; nothing whose destructor must not run while
// suspended may live across a co_await.
#include <cxxabi.h>

#include <coroutine>
#include <cstddef>
#include <exception>
#include <optional>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "sim/frame_pool.hpp"
#include "sim/simulation.hpp"

namespace sim {

// Thrown out of the awaited operation of a process that has been cancelled.
struct Cancelled : std::exception {
  const char* what() const noexcept override { return "process cancelled"; }
};

// Common base of every promise in a process, so awaiters can find the process they park.
// Its operator new/delete put every frame in the frame pool (sim/frame_pool.hpp).
struct PromiseBase {
  ProcState* proc = nullptr;
  // While this frame awaits a nested Task: that Task's promise and the handle owning its frame.
  // A killed process's frames are destroyed innermost first along these links (kill()).
  PromiseBase* callee = nullptr;
  std::coroutine_handle<>* callee_frame = nullptr;

  static void* operator new(std::size_t n) { return frame_pool::allocate(n); }
  static void operator delete(void* p, std::size_t n) noexcept { frame_pool::deallocate(p, n); }
};

// A top-level process. Created suspended; Simulation::spawn schedules its first step.
class Process {
 public:
  struct promise_type : PromiseBase {
    Process get_return_object() {
      return Process(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct FinalAwaiter {
      bool await_ready() noexcept { return false; }
      // Frees this very frame (legal: it is suspended, and nothing touches it afterwards).
      void await_suspend(std::coroutine_handle<promise_type> h) noexcept {
        ProcState& p = *h.promise().proc;
        p.sim->on_process_done(p);
      }
      void await_resume() noexcept {}
    };
    FinalAwaiter final_suspend() noexcept { return {}; }
    void return_void() {}
    // Cancellation is an ordinary end, recognised by the exception's type without rethrowing
    // it (a rethrow is one more unwind; a crash cancels thousands of goroutines at once).
    void unhandled_exception() {
      const std::type_info* t = abi::__cxa_current_exception_type();
      if (t == nullptr || *t != typeid(Cancelled)) {
        proc->cold().error = std::current_exception();
      }
    }
  };

  Process(Process&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Process& operator=(Process&&) = delete;
  ~Process() {
    if (h_) h_.destroy();  // never spawned
  }
  std::coroutine_handle<promise_type> release() { return std::exchange(h_, {}); }

 private:
  explicit Process(std::coroutine_handle<promise_type> h) : h_(h) {}
  std::coroutine_handle<promise_type> h_;
};

// Shared reference to a spawned process: join it, cancel it, ask whether it is done. It holds
// the process's slot (not its frame, which is freed at completion) and the process table, so
// it stays safe to ask done() or to cancel() even after the Simulation is destroyed.
class ProcessHandle {
 public:
  ProcessHandle() = default;
  explicit ProcessHandle(ProcState* p) : p_(p) {
    if (p_) {
      ++p_->refs;
      ++p_->table->holders;
    }
  }
  ProcessHandle(const ProcessHandle& o) : ProcessHandle(o.p_) {}
  ProcessHandle(ProcessHandle&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  ProcessHandle& operator=(ProcessHandle o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~ProcessHandle() {
    if (p_) release();
  }

  bool valid() const { return p_ != nullptr; }
  bool done() const { return p_->done; }
  ActorId id() const { return p_->id; }
  // Cancels a waiting process: its pending operation throws sim::Cancelled. No-op once done.
  void cancel();
  // cancel() for a process whose owner has already taken back what its waits hold (a crashed
  // Go process resets its run queue, cores and syscalls first). If it waits in an awaiter
  // that parked with park_killable(), the wake-up that cancel() schedules destroys its frames
  // innermost first instead of throwing sim::Cancelled through each of them (one unwind per
  // nested Task): the same destructors run in the same order, no catch block runs. So code
  // that may be killed releases what it holds in destructors (sim/on_unwind.hpp), never in a
  // catch. Otherwise (running, or parked elsewhere) the same as cancel().
  void kill();

  struct JoinAwaiter;
  JoinAwaiter join() const;
  // Waits at most `timeout`; true if the process finished.
  struct JoinForAwaiter;
  JoinForAwaiter join_for(Duration timeout) const;

 private:
  void release() noexcept;
  ProcState* p_ = nullptr;
};

// The building blocks of a model's own awaiter (a server's reply, a CPU job, a run queue):
//
//   struct ReplyAwaiter {
//     sim::ProcState* p = nullptr;
//     bool await_ready() const noexcept { return false; }
//     template <class P> bool await_suspend(std::coroutine_handle<P> h) {
//       if (!sim::park(h, p)) return false;          // cancelled: resume at once and throw
//       server.deliver_to(sim::WakeToken{p, p->gen});  // someone calls sim.wake(token) later
//       return true;
//     }
//     void await_resume() { sim::throw_if_cancelled(p); }
//   };
//
// A token goes stale the moment the process resumes for any reason, so waking it late (or
// twice) does nothing; a one-shot reply with a deadline is sim::Completion (sim/completion.hpp).

// The process that runs the awaiting frame.
template <class P>
ProcState* process_of(std::coroutine_handle<P> h) {
  static_assert(std::is_base_of_v<PromiseBase, P>,
                "sim awaitables can only be awaited inside sim::Process or sim::Task");
  return h.promise().proc;
}
// Parks the current frame unless the process was cancelled (then the awaiter throws at once).
template <class P>
bool park(std::coroutine_handle<P> h, ProcState*& out) {
  out = process_of(h);
  if (out->cancel_requested) return false;
  out->park(h);
  return true;
}
// park() for an awaiter whose await_resume, in a killed process, would do nothing but throw
// sim::Cancelled (what it holds its destructor releases): the kill may then destroy the frames.
template <class P>
bool park_killable(std::coroutine_handle<P> h, ProcState*& out) {
  if (!park(h, out)) return false;
  out->killable = true;
  return true;
}
inline void throw_if_cancelled(const ProcState* p) {
  if (p->cancel_requested) throw Cancelled{};
}

namespace detail {
// The names before they were public (kept so branches written against them still build).
template <class P>
ProcState* proc_of(std::coroutine_handle<P> h) {
  return process_of(h);
}
using sim::park;
using sim::throw_if_cancelled;
}  // namespace detail

// co_await sleep(d): resume d later (d <= 0 yields to every event already due now, like Go's
// time.Sleep of a non-positive duration); a d past the end of time saturates at kTimeMax.
struct SleepAwaiter {
  Duration d;
  ProcState* p = nullptr;
  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!park_killable(h, p)) return false;
    p->sim->wake_at(WakeToken{p, p->gen}, p->sim->after(d > 0 ? d : 0));
    return true;
  }
  void await_resume() const { throw_if_cancelled(p); }
};
inline SleepAwaiter sleep(Duration d) { return SleepAwaiter{d}; }
inline SleepAwaiter yield() { return SleepAwaiter{0}; }

// co_await sleep_until(t): a t already past resumes now (a deadline that has passed, as Go's timers).
struct SleepUntilAwaiter {
  Time t;
  ProcState* p = nullptr;
  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!park_killable(h, p)) return false;
    Time now = p->sim->now();
    p->sim->wake_at(WakeToken{p, p->gen}, t > now ? t : now);
    return true;
  }
  void await_resume() const { throw_if_cancelled(p); }
};
inline SleepUntilAwaiter sleep_until(Time t) { return SleepUntilAwaiter{t}; }

// co_await this_process(): the running process's state (its id, its Simulation).
struct ThisProcessAwaiter {
  ProcState* p = nullptr;
  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) noexcept {
    p = process_of(h);
    return false;  // never suspends
  }
  ProcState& await_resume() const noexcept { return *p; }
};
inline ThisProcessAwaiter this_process() { return {}; }

struct ProcessHandle::JoinAwaiter {
  ProcState* target;
  Waiter w;
  ProcState* p = nullptr;
  bool await_ready() const noexcept { return target->done; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!park(h, p)) return false;
    w.token = WakeToken{p, p->gen};
    target->cold().joiners.push_back(w);
    return true;
  }
  void await_resume() {
    if (target->done) return;
    w.unlink();
    throw_if_cancelled(p);
  }
};

struct ProcessHandle::JoinForAwaiter {
  ProcState* target;
  Duration timeout;
  Waiter w;
  ProcState* p = nullptr;
  bool await_ready() const noexcept { return target->done; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!park(h, p)) return false;
    w.token = WakeToken{p, p->gen};
    target->cold().joiners.push_back(w);
    p->sim->wake_at(w.token, p->sim->after(timeout));
    return true;
  }
  bool await_resume() {
    if (target->done) return true;
    w.unlink();
    throw_if_cancelled(p);
    return false;
  }
};

inline ProcessHandle::JoinAwaiter ProcessHandle::join() const { return JoinAwaiter{p_, {}}; }
inline ProcessHandle::JoinForAwaiter ProcessHandle::join_for(Duration timeout) const {
  return JoinForAwaiter{p_, timeout, {}};
}

// A nested coroutine returning T, awaited by its caller within the same process
// (FoundationDB's Future<T> actors). Lazily started; resumes its caller by symmetric transfer.
template <class T = void>
class Task {
 public:
  struct promise_type;
  using Handle = std::coroutine_handle<promise_type>;

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    std::coroutine_handle<> await_suspend(Handle h) noexcept { return h.promise().continuation; }
    void await_resume() noexcept {}
  };

  struct PromiseCommon : PromiseBase {
    std::coroutine_handle<> continuation;
    std::exception_ptr error;
    std::suspend_always initial_suspend() noexcept { return {}; }
    FinalAwaiter final_suspend() noexcept { return {}; }
    void unhandled_exception() { error = std::current_exception(); }
  };
  struct ValuePromise : PromiseCommon {
    std::optional<T> value;
    template <class U>
    void return_value(U&& v) {
      value.emplace(std::forward<U>(v));
    }
  };
  struct VoidPromise : PromiseCommon {
    void return_void() {}
  };
  struct promise_type : std::conditional_t<std::is_void_v<T>, VoidPromise, ValuePromise> {
    Task get_return_object() { return Task(Handle::from_promise(*this)); }
  };

  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&&) = delete;
  ~Task() {
    if (h_) h_.destroy();  // null if a kill destroyed the frame first
  }

  struct Awaiter {
    Handle child;
    std::coroutine_handle<>* owner;  // the Task's handle (a kill nulls it as it frees the frame)
    PromiseBase* caller_promise = nullptr;
    bool await_ready() const noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> caller) noexcept {
      child.promise().proc = process_of(caller);
      child.promise().continuation = caller;
      caller_promise = &caller.promise();
      caller_promise->callee = &child.promise();
      caller_promise->callee_frame = owner;
      return child;
    }
    T await_resume() {
      caller_promise->callee = nullptr;
      if (child.promise().error) std::rethrow_exception(child.promise().error);
      if constexpr (!std::is_void_v<T>) return std::move(*child.promise().value);
    }
  };
  Awaiter operator co_await() && { return Awaiter{Handle::from_address(h_.address()), &h_}; }

 private:
  explicit Task(Handle h) : h_(h) {}
  std::coroutine_handle<> h_;  // type-erased so a kill can null it through PromiseBase
};

}  // namespace sim
