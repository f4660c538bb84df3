#pragma once
// When sysmon wakes. It sleeps 20 µs while it keeps finding work; after 50 idle ticks it
// doubles its sleep each tick up to 10 ms (runtime/proc.go sysmon, domain.md §3.2). Each sleep
// is a nanosleep(2), which Linux lets overrun by the thread's timer slack, so a sleep of d
// lasts d + slack (the hrtimer fires at its hard expiry unless another timer comes first). The model
// never simulates idle ticks: it asks this clock for the first tick after a moment of interest
// (a syscall crossing the retake threshold) and schedules one event there.
#include "sim/time.hpp"

namespace goruntime {

class SysmonClock {
 public:
  SysmonClock(sim::Duration tick_min, sim::Duration tick_max, int idle_ticks_before_backoff,
              sim::Duration timer_slack = 0)
      : min_(tick_min), max_(tick_max), idle_ticks_(idle_ticks_before_backoff),
        slack_(timer_slack) {}

  // sysmon found work (retook a P) at `t`: its sleep resets to the minimum.
  void reset(sim::Time t) { anchor_ = t; }
  // The first tick strictly after `t`.
  sim::Time next_tick_after(sim::Time t) const { return tick_after(t).at; }
  // How long sysmon's sleep around `t` lasts, slack included (what a syscall must outlast to
  // be retaken).
  sim::Duration delay_at(sim::Time t) const { return tick_after(t).sleep; }

 private:
  struct Tick {
    sim::Time at;          // when the sleep ends
    sim::Duration sleep;   // how long it lasted
  };
  Tick tick_after(sim::Time t) const;

  sim::Duration min_;
  sim::Duration max_;
  int idle_ticks_;
  sim::Duration slack_;
  sim::Time anchor_ = 0;
};

}  // namespace goruntime
