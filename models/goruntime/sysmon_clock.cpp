#include "models/goruntime/sysmon_clock.hpp"

#include <algorithm>

namespace goruntime {

SysmonClock::Tick SysmonClock::tick_after(sim::Time t) const {
  const sim::Duration first = min_ + slack_;
  if (t < anchor_) {
    return {anchor_ + first, first};
  }
  // Phase 1: idle_ticks_ sleeps of min_ (each lasting min_ + slack_).
  const sim::Time phase1_end = anchor_ + static_cast<sim::Duration>(idle_ticks_) * first;
  if (t < phase1_end) {
    return {anchor_ + ((t - anchor_) / first + 1) * first, first};
  }
  // Phase 2: doubling sleeps until the cap.
  sim::Time tick = phase1_end;
  sim::Duration d = min_;
  while (d < max_) {
    d = std::min(d * 2, max_);
    tick += d + slack_;
    if (tick > t) {
      return {tick, d + slack_};
    }
  }
  // Phase 3: every max_ (+ slack_).
  const sim::Duration last = max_ + slack_;
  return {tick + ((t - tick) / last + 1) * last, last};
}

}  // namespace goruntime
