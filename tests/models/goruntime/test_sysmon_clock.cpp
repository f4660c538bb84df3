#include <catch2/catch.hpp>

#include "models/goruntime/sysmon_clock.hpp"

using namespace sim;
using goruntime::SysmonClock;

TEST_CASE("sysmon ticks every 20us, backs off by doubling after 50 idle ticks, caps at 10ms") {
  SysmonClock c(20 * kMicrosecond, 10 * kMillisecond, 50);
  c.reset(0);
  CHECK(c.next_tick_after(0) == 20 * kMicrosecond);
  CHECK(c.next_tick_after(25 * kMicrosecond) == 40 * kMicrosecond);
  CHECK(c.delay_at(500 * kMicrosecond) == 20 * kMicrosecond);
  // 50 ticks end at 1 ms; then 40, 80, 160 us ...
  CHECK(c.next_tick_after(kMillisecond) == kMillisecond + 40 * kMicrosecond);
  CHECK(c.next_tick_after(kMillisecond + 40 * kMicrosecond) == kMillisecond + 120 * kMicrosecond);
  CHECK(c.delay_at(kMillisecond + 100 * kMicrosecond) == 80 * kMicrosecond);
  // Long idle: the sleep is capped at 10 ms.
  CHECK(c.delay_at(kHour) == 10 * kMillisecond);
  Time t = c.next_tick_after(kHour);
  CHECK(c.next_tick_after(t) == t + 10 * kMillisecond);
  // Work found: back to 20 us.
  c.reset(kHour);
  CHECK(c.next_tick_after(kHour) == kHour + 20 * kMicrosecond);
}

TEST_CASE("timer slack stretches every sleep: a 20-us tick lasts 70 us on Linux's default slack") {
  SysmonClock c(20 * kMicrosecond, 10 * kMillisecond, 50, 50 * kMicrosecond);
  c.reset(0);
  CHECK(c.next_tick_after(0) == 70 * kMicrosecond);
  CHECK(c.delay_at(0) == 70 * kMicrosecond);
  // The 50 short ticks now end at 3.5 ms; then 40 + 50, 80 + 50 us ...
  const Time phase1 = 50 * 70 * kMicrosecond;
  CHECK(c.next_tick_after(phase1 - 1) == phase1);
  CHECK(c.next_tick_after(phase1) == phase1 + 90 * kMicrosecond);
  CHECK(c.delay_at(phase1 + 100 * kMicrosecond) == 130 * kMicrosecond);
  // The cap is 10 ms of requested sleep, 10.05 ms of real one.
  CHECK(c.delay_at(kHour) == 10 * kMillisecond + 50 * kMicrosecond);
  Time t = c.next_tick_after(kHour);
  CHECK(c.next_tick_after(t) == t + 10 * kMillisecond + 50 * kMicrosecond);
}
