#pragma once
// Deadlines of many waits armed in (nearly) deadline order -- now + one fixed timeout, as every
// call of a client -- that nearly all end before it: one callback event for the whole list
// instead of a queue entry per wait. A per-wait wake-up at the deadline stays in the event queue
// as a stale entry until then whatever happened to the wait: a fan-out's 14,000 gocql calls/s
// with gocql's 11 s timeout kept ~150,000 of them pending, which moved the queue into its
// ladder and made every event ~1.3x dearer (docs/kernel.md, "Deadlines of many waits").
//
// Arming links the wait's Entry (inside its awaiter, in the waiting frame) into the list in
// deadline order (from the back: usually O(1)); ending the wait unlinks it (O(1), also when the
// frame is destroyed mid-wait). The list keeps one timer for its earliest deadline; an entry that
// ends before it is simply gone, and the timer, when it fires early, re-arms for the new head.
// So a client pays about one event per timeout length, plus one per wait that really times out.
// Must not outlive its Simulation.
#include <string_view>

#include "sim/intrusive_list.hpp"
#include "sim/simulation.hpp"

namespace sim {

class DeadlineList final : public Handler {
 public:
  struct Entry : ListNode {
    Time deadline = kTimeMax;
    WakeToken token;
  };

  DeadlineList(Simulation& sim, std::string_view kind) : sim_(sim) {
    actor_id = sim.new_actor_id();
    this->kind = sim.intern_kind(kind);
  }
  ~DeadlineList() override { sim_.cancel_timer(timer_); }
  DeadlineList(const DeadlineList&) = delete;
  DeadlineList& operator=(const DeadlineList&) = delete;

  // Wakes `token` at `deadline` unless `e` is unlinked before (disarm, or its destruction).
  void arm(Entry& e, Time deadline, WakeToken token) {
    e.deadline = deadline;
    e.token = token;
    waits_.insert_from_back(e, [](const Entry& a, const Entry& b) { return a.deadline < b.deadline; });
    if (deadline < timer_at_) schedule(deadline);
  }
  static void disarm(Entry& e) { e.unlink(); }
  bool empty() const { return waits_.empty(); }

  void on_event(Simulation& sim) override {
    timer_ = TimerToken{};
    timer_at_ = kTimeMax;
    while (!waits_.empty() && waits_.front().deadline <= sim.now()) {
      Entry& due = waits_.pop_front();
      sim.wake(due.token);
    }
    if (!waits_.empty()) schedule(waits_.front().deadline);
  }

 private:
  void schedule(Time t) {
    sim_.cancel_timer(timer_);
    timer_ = sim_.schedule_timer(t < sim_.now() ? sim_.now() : t, *this);
    timer_at_ = t;
  }

  Simulation& sim_;
  IntrusiveList<Entry> waits_;  // by deadline, earliest first
  TimerToken timer_;
  Time timer_at_ = kTimeMax;  // when timer_ fires; kTimeMax: not armed
};

}  // namespace sim
