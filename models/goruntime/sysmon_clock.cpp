#include "models/goruntime/sysmon_clock.hpp"

#include <algorithm>

namespace goruntime {

sim::Time SysmonClock::next_tick_after(sim::Time t) const {
  const sim::Duration first = min_ + slack_;
  if (t < anchor_) {
    return anchor_ + first;
  }
  // Phase 1: idle_ticks_ sleeps of min_ (each lasting min_ + slack_).
  sim::Time phase1_end = anchor_ + static_cast<sim::Duration>(idle_ticks_) * first;
  if (t < phase1_end) {
    return anchor_ + ((t - anchor_) / first + 1) * first;
  }
  // Phase 2: doubling sleeps until the cap.
  sim::Time tick = phase1_end;
  sim::Duration d = min_;
  while (d < max_) {
    d = std::min(d * 2, max_);
    tick += d + slack_;
    if (tick > t) {
      return tick;
    }
  }
  // Phase 3: every max_ (+ slack_).
  const sim::Duration last = max_ + slack_;
  return tick + ((t - tick) / last + 1) * last;
}

sim::Duration SysmonClock::delay_at(sim::Time t) const {
  sim::Time next = next_tick_after(t);
  sim::Time phase1_end = anchor_ + static_cast<sim::Duration>(idle_ticks_) * (min_ + slack_);
  if (next <= phase1_end) {
    return min_ + slack_;
  }
  sim::Time tick = phase1_end;
  sim::Duration d = min_;
  while (d < max_) {
    d = std::min(d * 2, max_);
    tick += d + slack_;
    if (tick >= next) {
      return d + slack_;
    }
  }
  return max_ + slack_;
}

}  // namespace goruntime
