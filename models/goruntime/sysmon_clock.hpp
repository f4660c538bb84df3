#pragma once
// When sysmon wakes. It sleeps 20 µs while it keeps finding work; after 50 idle ticks it
// doubles its sleep each tick up to 10 ms (runtime/proc.go sysmon, domain.md §3.2). The model
// never simulates idle ticks: it asks this clock for the first tick after a moment of interest
// (a syscall crossing the retake threshold) and schedules one event there.
#include "sim/time.hpp"

namespace goruntime {

class SysmonClock {
 public:
  SysmonClock(sim::Duration tick_min, sim::Duration tick_max, int idle_ticks_before_backoff)
      : min_(tick_min), max_(tick_max), idle_ticks_(idle_ticks_before_backoff) {}

  // sysmon found work (retook a P) at `t`: its sleep resets to the minimum.
  void reset(sim::Time t) { anchor_ = t; }
  // The first tick strictly after `t`.
  sim::Time next_tick_after(sim::Time t) const;
  // sysmon's sleep length around `t` (what a syscall must outlast to be retaken).
  sim::Duration delay_at(sim::Time t) const;

 private:
  sim::Duration min_;
  sim::Duration max_;
  int idle_ticks_;
  sim::Time anchor_ = 0;
};

}  // namespace goruntime
