#pragma once
// Synchronisation between processes, as awaitables in the style of sleep/join (process.hpp):
//
//   Semaphore   weighted, strictly FIFO (a pool of connections, a worker budget, a rate)
//   Channel<T>  bounded, unbounded or rendezvous queue between processes (Go's chan)
//   Event       a flag processes wait for (one-shot if never reset; manual reset otherwise)
//   Condition   notify_one / notify_all (Mesa semantics: re-check the predicate after waking)
//
// Common rules, which the tests pin:
// - A waiter is an intrusive node inside the awaiter, i.e. inside the waiting frame: waiting
//   never allocates, and a frame destroyed mid-wait unlinks itself. A primitive destroyed
//   before its waiters orphans them (IntrusiveList's destructor), so destruction order between
//   a primitive and a Simulation never matters.
// - A wake-up goes through the event queue at the current time (FIFO after the events already
//   due now), never by resuming the waiter inline inside release()/send()/set().
// - A cancelled waiter throws sim::Cancelled from its co_await. Grants skip waiters whose
//   process is already cancelled; if a grant raced with a later cancellation (both in the
//   same instant, before the waiter ran), the waiter hands what it got back to the primitive
//   (semaphore units, a received value, a notification) before throwing, so nothing leaks.
// - Timeouts (`*_for`) are relative durations >= 0 and throw std::invalid_argument otherwise.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "sim/process.hpp"

namespace sim {

namespace detail {

inline Duration checked_timeout(Duration timeout, const char* op) {
  if (timeout < 0) {
    throw std::invalid_argument(std::string(op) + ": negative timeout " + std::to_string(timeout) +
                                " ns");
  }
  return timeout;
}

inline bool waiter_cancelled(const Waiter& w) { return w.token.proc->cancel_requested; }

inline void wake_waiter(Waiter& w) {
  w.unlink();
  w.token.proc->sim->wake(w.token);
}

// Parks the awaiting frame on `list`; with a timeout >= 0 also schedules a timeout wake-up
// (stale, hence ignored, if the primitive wakes the process first).
template <class P, class W>
bool park_on(std::coroutine_handle<P> h, ProcState*& p, IntrusiveList<W>& list, W& w,
             Duration timeout) {
  if (!park(h, p)) return false;
  w.token = WakeToken{p, p->gen};
  list.push_back(w);
  if (timeout >= 0) p->sim->wake_at(w.token, p->sim->after(timeout));
  return true;
}

}  // namespace detail

// ---- Semaphore ---------------------------------------------------------------------------

// Weighted and strictly FIFO: a waiter asking for more units than are free blocks every
// waiter behind it, even ones that would fit (no barging, no starvation of big requests).
// These are the semantics of Go's golang.org/x/sync/semaphore.Weighted; an errgroup with
// SetLimit(L) is this with capacity L and weight 1 (domain.md §4).
class Semaphore {
 public:
  struct UnitWaiter : Waiter {
    std::int64_t n = 0;
    bool granted = false;
  };
  template <bool Timed>
  struct Acquire;

  explicit Semaphore(std::int64_t initial = 0) : available_(initial) {
    if (initial < 0) {
      throw std::invalid_argument("Semaphore: negative initial count " + std::to_string(initial));
    }
  }
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;

  // co_await acquire(n): waits until n units are granted (n >= 0).
  Acquire<false> acquire(std::int64_t n = 1);
  // co_await acquire_for(n, timeout) -> bool: false if not granted within timeout.
  Acquire<true> acquire_for(std::int64_t n, Duration timeout);

  // Takes n units now if they are free and nobody is queued ahead; never waits.
  bool try_acquire(std::int64_t n = 1) {
    check_units(n, "try_acquire");
    if (!waiters_.empty() || available_ < n) return false;
    available_ -= n;
    return true;
  }
  void release(std::int64_t n = 1) {
    check_units(n, "release");
    available_ += n;
    grant();
  }

  std::int64_t available() const { return available_; }
  std::size_t waiters() const { return waiters_.size(); }

 private:
  // Grants units to the queue head while it fits; drops cancelled waiters on the way.
  void grant() {
    while (!waiters_.empty()) {
      UnitWaiter& w = waiters_.front();
      if (detail::waiter_cancelled(w)) {
        w.unlink();  // it throws Cancelled when it runs; it must not block the queue
        continue;
      }
      if (w.n > available_) break;
      available_ -= w.n;
      w.granted = true;
      detail::wake_waiter(w);
    }
  }

  static void check_units(std::int64_t n, const char* op) {
    if (n < 0) {
      throw std::invalid_argument(std::string("Semaphore::") + op + ": negative unit count " +
                                  std::to_string(n));
    }
  }

  std::int64_t available_;
  IntrusiveList<UnitWaiter> waiters_;
};

template <bool Timed>
struct Semaphore::Acquire {
  Semaphore* sem;
  std::int64_t n;
  Duration timeout;  // -1: none
  UnitWaiter w{};
  ProcState* p = nullptr;

  bool await_ready() {
    w.granted = sem->try_acquire(n);
    return w.granted;
  }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    w.n = n;
    return detail::park_on(h, p, sem->waiters_, w, Timed ? timeout : -1);
  }
  // Returns whether the units were granted (always true for an untimed acquire).
  std::conditional_t<Timed, bool, void> await_resume() {
    if (w.granted) {
      if (p != nullptr && p->cancel_requested) {
        sem->release(n);  // granted, then cancelled before running: give the units back
        throw Cancelled{};
      }
      if constexpr (Timed) {
        return true;
      } else {
        return;
      }
    }
    if (w.linked()) {
      w.unlink();
      sem->grant();  // a timed-out or cancelled head may have been blocking smaller waiters
    }
    throw_if_cancelled(p);
    assert(Timed && "an untimed acquire resumed without a grant");
    if constexpr (Timed) {
      return false;
    }
  }
};

inline Semaphore::Acquire<false> Semaphore::acquire(std::int64_t n) {
  check_units(n, "acquire");
  return Acquire<false>{this, n, -1};
}
inline Semaphore::Acquire<true> Semaphore::acquire_for(std::int64_t n, Duration timeout) {
  check_units(n, "acquire_for");
  return Acquire<true>{this, n, detail::checked_timeout(timeout, "Semaphore::acquire_for")};
}

// ---- Channel -----------------------------------------------------------------------------

// A FIFO of values between processes. Capacity 0 is a rendezvous (Go's unbuffered chan: a
// send completes when a receiver takes the value); kUnbounded never blocks senders.
// close(): later sends fail (return false, value dropped); blocked senders wake and fail;
// receivers drain what is buffered, then get std::nullopt.
template <class T>
class Channel {
 public:
  static constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();

  struct RecvWaiter : Waiter {
    std::optional<T> value;
    bool woken = false;
  };
  struct SendWaiter : Waiter {
    T* value = nullptr;
    bool taken = false;
    bool refused = false;  // closed while waiting
  };
  template <bool Timed>
  struct Recv;
  template <bool Timed>
  struct Send;

  explicit Channel(std::size_t capacity = kUnbounded) : capacity_(capacity) {}
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // co_await send(v) -> bool: true once buffered or handed over; false if closed.
  Send<false> send(T v) { return Send<false>{this, std::move(v), -1}; }
  // co_await send_for(v, timeout) -> bool: also false on timeout (then nothing was sent).
  Send<true> send_for(T v, Duration timeout) {
    return Send<true>{this, std::move(v), detail::checked_timeout(timeout, "Channel::send_for")};
  }
  // co_await recv() -> std::optional<T>: nullopt once closed and drained.
  Recv<false> recv() { return Recv<false>{this, -1}; }
  // co_await recv_for(timeout) -> std::optional<T>: also nullopt on timeout (see closed()).
  Recv<true> recv_for(Duration timeout) {
    return Recv<true>{this, detail::checked_timeout(timeout, "Channel::recv_for")};
  }

  // Never waits. On false the argument is left untouched.
  template <class U>
  bool try_send(U&& v) {
    if (closed_) return false;
    if (hand_to_receiver<U>(v)) return true;
    if (buffer_.size() >= capacity_) return false;
    buffer_.emplace_back(std::forward<U>(v));
    return true;
  }
  std::optional<T> try_recv() {
    if (!buffer_.empty()) {
      std::optional<T> v(std::move(buffer_.front()));
      buffer_.pop_front();
      refill_from_sender();
      return v;
    }
    SendWaiter* s = first_live(senders_);
    if (s == nullptr) return std::nullopt;
    std::optional<T> v(std::move(*s->value));
    s->taken = true;
    detail::wake_waiter(*s);
    return v;
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    while (!receivers_.empty()) {
      RecvWaiter& r = receivers_.front();
      r.woken = true;
      detail::wake_waiter(r);
    }
    while (!senders_.empty()) {
      SendWaiter& s = senders_.front();
      s.refused = true;
      detail::wake_waiter(s);
    }
  }

  bool closed() const { return closed_; }
  std::size_t size() const { return buffer_.size(); }  // buffered values
  std::size_t capacity() const { return capacity_; }
  std::size_t waiting_senders() const { return senders_.size(); }
  std::size_t waiting_receivers() const { return receivers_.size(); }

 private:
  template <class W>
  static W* first_live(IntrusiveList<W>& list) {
    while (!list.empty()) {
      W& w = list.front();
      if (!detail::waiter_cancelled(w)) return &w;
      w.unlink();
    }
    return nullptr;
  }
  // A receiver waits only when nothing is buffered, so handing over directly keeps FIFO.
  template <class U>
  bool hand_to_receiver(U& v) {
    RecvWaiter* r = first_live(receivers_);
    if (r == nullptr) return false;
    r->value.emplace(std::forward<U>(v));
    r->woken = true;
    detail::wake_waiter(*r);
    return true;
  }
  void refill_from_sender() {
    if (buffer_.size() >= capacity_) return;
    SendWaiter* s = first_live(senders_);
    if (s == nullptr) return;
    buffer_.emplace_back(std::move(*s->value));
    s->taken = true;
    detail::wake_waiter(*s);
  }
  // A value received by a process cancelled before it ran goes back to the head of the line.
  void give_back(T&& v) {
    if (hand_to_receiver<T>(v)) return;
    buffer_.emplace_front(std::move(v));
  }

  std::size_t capacity_;
  bool closed_ = false;
  std::deque<T> buffer_;
  IntrusiveList<RecvWaiter> receivers_;
  IntrusiveList<SendWaiter> senders_;
};

template <class T>
template <bool Timed>
struct Channel<T>::Recv {
  Channel* ch;
  Duration timeout;
  RecvWaiter w{};
  ProcState* p = nullptr;

  bool await_ready() {
    w.value = ch->try_recv();
    w.woken = w.value.has_value() || ch->closed_;
    return w.woken;
  }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    return detail::park_on(h, p, ch->receivers_, w, Timed ? timeout : -1);
  }
  std::optional<T> await_resume() {
    if (w.woken) {
      if (p != nullptr && p->cancel_requested) {
        if (w.value) ch->give_back(std::move(*w.value));
        throw Cancelled{};
      }
      return std::move(w.value);
    }
    w.unlink();
    throw_if_cancelled(p);
    assert(Timed && "an untimed recv resumed without a value");
    return std::nullopt;
  }
};

template <class T>
template <bool Timed>
struct Channel<T>::Send {
  Channel* ch;
  T value;
  Duration timeout;
  SendWaiter w{};
  ProcState* p = nullptr;
  bool done = false;

  bool await_ready() {
    if (ch->closed_) {
      w.refused = true;
      return true;
    }
    done = ch->try_send(std::move(value));  // moves only on success
    return done;
  }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    w.value = &value;
    return detail::park_on(h, p, ch->senders_, w, Timed ? timeout : -1);
  }
  // A value taken just before the sender was cancelled stays delivered (the receiver may
  // already have acted on it); the sender still throws Cancelled.
  bool await_resume() {
    if (done) return true;
    if (w.taken) {
      throw_if_cancelled(p);
      return true;
    }
    if (w.refused) return false;
    w.unlink();
    throw_if_cancelled(p);
    assert(Timed && "an untimed send resumed without completing");
    return false;
  }
};

// ---- Event -------------------------------------------------------------------------------

// A flag. set() wakes every waiter (and later waits pass at once) until reset().
class Event {
 public:
  struct FlagWaiter : Waiter {
    bool woken = false;
  };
  template <bool Timed>
  struct Wait;

  explicit Event(bool initially_set = false) : set_(initially_set) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void set() {
    set_ = true;
    while (!waiters_.empty()) {
      FlagWaiter& w = waiters_.front();
      w.woken = true;
      detail::wake_waiter(w);
    }
  }
  void reset() { set_ = false; }
  bool is_set() const { return set_; }
  std::size_t waiters() const { return waiters_.size(); }

  Wait<false> wait();
  // co_await wait_for(timeout) -> bool: false on timeout.
  Wait<true> wait_for(Duration timeout);

 private:
  bool set_;
  IntrusiveList<FlagWaiter> waiters_;
};

template <bool Timed>
struct Event::Wait {
  Event* ev;
  Duration timeout;
  FlagWaiter w{};
  ProcState* p = nullptr;

  bool await_ready() const noexcept { return ev->set_; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    return detail::park_on(h, p, ev->waiters_, w, Timed ? timeout : -1);
  }
  std::conditional_t<Timed, bool, void> await_resume() {
    if (p == nullptr) {  // the flag was already set
      if constexpr (Timed) {
        return true;
      } else {
        return;
      }
    }
    if (!w.woken) {
      w.unlink();
    }
    throw_if_cancelled(p);
    assert((Timed || w.woken) && "an untimed wait resumed without set()");
    if constexpr (Timed) {
      return w.woken;
    }
  }
};

inline Event::Wait<false> Event::wait() { return Wait<false>{this, -1}; }
inline Event::Wait<true> Event::wait_for(Duration timeout) {
  return Wait<true>{this, detail::checked_timeout(timeout, "Event::wait_for")};
}

// ---- Condition ---------------------------------------------------------------------------

// Waiters queue in FIFO order; notify_one wakes the head, notify_all everyone waiting now.
// A wait always suspends (there is no flag): `while (!ready()) co_await cond.wait();`.
class Condition {
 public:
  struct NotifyWaiter : Waiter {
    bool woken = false;
  };
  template <bool Timed>
  struct Wait;

  Condition() = default;
  Condition(const Condition&) = delete;
  Condition& operator=(const Condition&) = delete;

  // Returns false if nobody (not cancelled) was waiting.
  bool notify_one() {
    while (!waiters_.empty()) {
      NotifyWaiter& w = waiters_.front();
      if (detail::waiter_cancelled(w)) {
        w.unlink();
        continue;
      }
      w.woken = true;
      detail::wake_waiter(w);
      return true;
    }
    return false;
  }
  std::size_t notify_all() {
    std::size_t n = 0;
    while (notify_one()) ++n;
    return n;
  }
  std::size_t waiters() const { return waiters_.size(); }

  Wait<false> wait();
  // co_await wait_for(timeout) -> bool: false on timeout.
  Wait<true> wait_for(Duration timeout);

 private:
  IntrusiveList<NotifyWaiter> waiters_;
};

template <bool Timed>
struct Condition::Wait {
  Condition* cv;
  Duration timeout;
  NotifyWaiter w{};
  ProcState* p = nullptr;

  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    return detail::park_on(h, p, cv->waiters_, w, Timed ? timeout : -1);
  }
  std::conditional_t<Timed, bool, void> await_resume() {
    if (w.woken) {
      if (p->cancel_requested) {
        cv->notify_one();  // pass the notification on rather than lose it
        throw Cancelled{};
      }
      if constexpr (Timed) {
        return true;
      } else {
        return;
      }
    }
    w.unlink();
    throw_if_cancelled(p);
    assert(Timed && "an untimed wait resumed without a notification");
    if constexpr (Timed) {
      return false;
    }
  }
};

inline Condition::Wait<false> Condition::wait() { return Wait<false>{this, -1}; }
inline Condition::Wait<true> Condition::wait_for(Duration timeout) {
  return Wait<true>{this, detail::checked_timeout(timeout, "Condition::wait_for")};
}

}  // namespace sim
