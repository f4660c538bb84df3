#include "models/goruntime/sysmon_clock.hpp"

#include <algorithm>

namespace goruntime {

sim::Time SysmonClock::next_tick_after(sim::Time t) const {
  if (t < anchor_) {
    return anchor_ + min_;
  }
  // Phase 1: idle_ticks_ ticks of min_.
  sim::Time phase1_end = anchor_ + static_cast<sim::Duration>(idle_ticks_) * min_;
  if (t < phase1_end) {
    return anchor_ + ((t - anchor_) / min_ + 1) * min_;
  }
  // Phase 2: doubling sleeps until the cap.
  sim::Time tick = phase1_end;
  sim::Duration d = min_;
  while (d < max_) {
    d = std::min(d * 2, max_);
    tick += d;
    if (tick > t) {
      return tick;
    }
  }
  // Phase 3: every max_.
  return tick + ((t - tick) / max_ + 1) * max_;
}

sim::Duration SysmonClock::delay_at(sim::Time t) const {
  sim::Time next = next_tick_after(t);
  sim::Time phase1_end = anchor_ + static_cast<sim::Duration>(idle_ticks_) * min_;
  if (next <= phase1_end) {
    return min_;
  }
  sim::Time tick = phase1_end;
  sim::Duration d = min_;
  while (d < max_) {
    d = std::min(d * 2, max_);
    tick += d;
    if (tick >= next) {
      return d;
    }
  }
  return max_;
}

}  // namespace goruntime
