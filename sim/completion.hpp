#pragma once
// A one-shot result that another party delivers to one waiting process, with an optional
// deadline: an RPC reply, a commit decision, a job done. What models otherwise write by hand
// as a custom awaiter that stores a WakeToken somewhere:
//
//   auto reply = std::make_shared<sim::Completion<McResult>>();
//   server.submit(request, reply);                        // later: reply->complete_at(t, result)
//   std::optional<McResult> r = co_await reply->wait_until(deadline);   // nullopt: timed out
//
// complete_at(t, v) makes v visible at t >= now (the reply's trip back); a waiter parked then
// resumes at t, or at its deadline if that comes first (then the value arrives "late" and the
// wait returns nullopt; completed() stays true). The loser of that race is a stale queue entry,
// which keeps no frame alive (docs/kernel.md, "Cancellation"). The Completion must outlive the
// wait (hold it in a shared_ptr when either side may finish first); a frame destroyed mid-wait
// clears its registration, so a late complete_at never wakes a freed frame.
#include <coroutine>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "sim/deadline_list.hpp"
#include "sim/process.hpp"

namespace sim {

template <class T = void>
class Completion {
  struct Empty {};
  using Stored = std::conditional_t<std::is_void_v<T>, Empty, T>;

 public:
  using Result = std::conditional_t<std::is_void_v<T>, bool, std::optional<T>>;

  Completion() = default;
  Completion(const Completion&) = delete;
  Completion& operator=(const Completion&) = delete;

  bool completed() const { return value_.has_value(); }
  bool waiting() const { return waiter_.proc != nullptr; }

  // Delivers the value, visible from time t (>= sim.now(); earlier throws, as any past
  // scheduling). A second completion is a model bug and throws std::logic_error.
  template <class... U>
  void complete_at(Simulation& sim, Time t, U&&... v) {
    if (value_) throw std::logic_error("sim::Completion completed twice");
    if (t < sim.now()) {
      throw SimulationFailure("scheduling into the past: sim::Completion completed for t=" +
                                  std::to_string(t) + " ns, now is t=" +
                                  std::to_string(sim.now()) + " ns",
                              sim.now());
    }
    value_.emplace(std::forward<U>(v)...);
    ready_at_ = t;
    if (waiter_.proc != nullptr) sim.wake_at(std::exchange(waiter_, {}), t);
  }
  template <class... U>
  void complete(Simulation& sim, U&&... v) {
    complete_at(sim, sim.now(), std::forward<U>(v)...);
  }

  struct Wait {
    Completion* c;
    Time deadline;  // kTimeMax: none
    DeadlineList* list = nullptr;  // the deadline's timer; null: a queue entry of its own
    ProcState* p = nullptr;
    DeadlineList::Entry entry;

    Wait(Completion* completion, Time d, DeadlineList* l = nullptr)
        : c(completion), deadline(d), list(l) {}
    Wait(const Wait&) = delete;
    ~Wait() {
      if (p != nullptr && c->waiter_.proc == p) c->waiter_ = {};  // destroyed mid-wait
    }
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) {
      if (!park(h, p)) return false;
      Simulation& sim = *p->sim;
      if (c->ready(sim.now())) {  // already visible: resume after the events due now
        sim.wake(WakeToken{p, p->gen});
        return true;
      }
      const WakeToken token{p, p->gen};
      if (c->value_) {
        // Completed, visible later: one wake-up at whichever comes first.
        sim.wake_at(token, c->ready_at_ < deadline ? c->ready_at_ : deadline);
        return true;
      }
      c->waiter_ = token;
      if (deadline == kTimeMax) return true;
      if (list != nullptr) {
        list->arm(entry, deadline, token);
      } else {
        sim.wake_at(token, deadline < sim.now() ? sim.now() : deadline);
      }
      return true;
    }
    Result await_resume() {
      DeadlineList::disarm(entry);
      if (c->waiter_.proc == p) c->waiter_ = {};
      throw_if_cancelled(p);
      const bool got = c->ready(p->sim->now());
      if constexpr (std::is_void_v<T>) {
        return got;
      } else {
        if (!got) return std::nullopt;
        return std::optional<T>(std::move(*c->value_));
      }
    }
  };

  // co_await wait_until(deadline): the value, or nullopt (false for void) if the deadline
  // came first. A deadline already past still yields once (Go's expired timer).
  Wait wait_until(Time deadline) { return Wait(this, deadline); }
  // The same, its deadline kept by `list` (sim/deadline_list.hpp) instead of a queue entry of
  // its own: for waits that nearly all end well before their deadline.
  Wait wait_until(Time deadline, DeadlineList& list) { return Wait(this, deadline, &list); }
  Wait wait() { return Wait(this, kTimeMax); }

 private:
  bool ready(Time now) const { return value_.has_value() && ready_at_ <= now; }

  std::optional<Stored> value_;
  Time ready_at_ = 0;
  WakeToken waiter_;
};

}  // namespace sim
