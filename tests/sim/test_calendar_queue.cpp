#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "sim/calendar_queue.hpp"
#include "sim/event_queue.hpp"
#include "tests/sim/queue_check.hpp"

using sim::CalendarQueue;
using sim::EventQueue;
using sim::QueueEntry;

using queue_check::Lcg;
using queue_check::pop_both;
using queue_check::push_both;
using queue_check::Ref;

TEST_CASE("the calendar queue pops in exact (time, key) order through growth and shrinkage") {
  // A hold model whose population grows to 60k entries and drains to zero again: every bucket
  // count from 64 up and down is crossed, with equal times, dense and sparse stretches.
  CalendarQueue q;
  Ref ref;
  std::uint64_t seq = 0;
  Lcg rng{3};
  sim::Time now = 0;
  std::size_t rebuilds_seen = 0;
  auto delay = [&]() -> sim::Time {
    switch (rng.below(6)) {
      case 0:
        return 0;  // equal to the clock: ties broken by key
      case 1:
        return static_cast<sim::Time>(rng.below(10));
      case 2:
        return static_cast<sim::Time>(rng.below(100000));
      default:
        return static_cast<sim::Time>(rng.below(5000));
    }
  };
  for (int phase = 0; phase < 2; ++phase) {
    for (int step = 0; step < 120000; ++step) {
      const bool grow = phase == 0;
      // Growing: 2 pushes per pop on average; draining: 1 push per 2 pops.
      if (!ref.empty() && (grow ? rng.below(3) == 0 : rng.below(3) != 0)) {
        const sim::Time t = ref.begin()->first;
        pop_both(q, ref);
        now = t;
      } else {
        push_both(q, ref, now + delay(), seq);
      }
    }
    rebuilds_seen = q.rebuilds();
  }
  while (!ref.empty()) pop_both(q, ref);
  CHECK(q.empty());
  CHECK(rebuilds_seen > 8);  // the boundaries were crossed, not just sat on
}

TEST_CASE("the calendar queue keeps exact order with far-future outliers and a sparse year") {
  // A dense front, a few entries at the end of time and at 1e15 ns, and gaps longer than a year
  // of buckets: the day-by-day walk has to fall back on the direct search, and outliers must
  // neither stretch the day length nor pop early.
  CalendarQueue q;
  Ref ref;
  std::uint64_t seq = 0;
  Lcg rng{5};
  for (int i = 0; i < 20000; ++i) {
    push_both(q, ref, static_cast<sim::Time>(rng.below(1000000)), seq);
  }
  for (int i = 0; i < 5; ++i) push_both(q, ref, sim::kTimeMax, seq);
  for (int i = 0; i < 5; ++i) push_both(q, ref, 1000000000000000LL + i, seq);
  push_both(q, ref, -5, seq);  // negative times sort first (the order is over signed time)
  const unsigned shift = q.day_shift();
  CHECK(shift < 10);  // ~50 ns between entries: days of a few hundred ns at most, not 2^40
  sim::Time now = -5;
  for (int step = 0; step < 200000 && !ref.empty(); ++step) {
    const sim::Time t = ref.begin()->first;
    pop_both(q, ref);
    now = t;
    if (now < 2000000 && rng.below(2) == 0) {
      // Sometimes a jump far past a year of days.
      const sim::Time d =
          rng.below(50) == 0 ? 5000000000LL : static_cast<sim::Time>(rng.below(3000));
      push_both(q, ref, now + d, seq);
    }
  }
  while (!ref.empty()) pop_both(q, ref);
}

TEST_CASE("the calendar queue is FIFO among equal times, also within the day being executed") {
  CalendarQueue q;
  Ref ref;
  std::uint64_t seq = 0;
  for (int i = 0; i < 3000; ++i) push_both(q, ref, 1000, seq);
  for (int i = 0; i < 3000; ++i) push_both(q, ref, 1000 + (i % 7), seq);
  // Pop some, then push into the day being executed (at and just after the popped time).
  for (int i = 0; i < 100; ++i) pop_both(q, ref);
  for (int i = 0; i < 500; ++i) push_both(q, ref, 1000 + (i % 3), seq);
  while (!ref.empty()) pop_both(q, ref);
}

TEST_CASE("the calendar queue re-estimates its day length when the density changes") {
  // A constant population whose spacing drops from ~1 ms to ~10 ns (each popped entry is
  // replaced by one in a band 80 us wide far ahead, then the band recirculates): without a size
  // change only the walk's statistics can tell that days now hold hundreds of entries.
  CalendarQueue q;
  Ref ref;
  std::uint64_t seq = 0;
  Lcg rng{9};
  for (int i = 0; i < 8000; ++i) {
    push_both(q, ref, static_cast<sim::Time>(rng.below(8000000000)), seq);
  }
  const unsigned coarse = q.day_shift();
  for (int step = 0; step < 200000; ++step) {
    const sim::Time t = ref.begin()->first;
    pop_both(q, ref);
    const sim::Time band = 10000000000000LL;  // 1e13 ns: far beyond phase one's times
    const sim::Time at = step < 30000   ? t + static_cast<sim::Time>(rng.below(2000000000))
                         : step < 38000 ? band + static_cast<sim::Time>(rng.below(80000))
                                        : t + static_cast<sim::Time>(rng.below(80000));
    push_both(q, ref, at, seq);
  }
  CHECK(coarse >= 18);
  CHECK(q.day_shift() + 8 <= coarse);
  while (!ref.empty()) pop_both(q, ref);
}

TEST_CASE("the event queue moves between heap and calendar at its bounds with the same order") {
  // The kernel's pattern (pop, advance the clock, push at or after it, some through the now
  // lane) with a population swinging across kCalendarFrom and kHeapBelow several times.
  EventQueue q;
  Ref ref;
  std::uint64_t seq = 0;
  Lcg rng{13};
  sim::Time now = 0;
  int to_calendar = 0;
  int to_heap = 0;
  bool was_calendar = false;
  auto push = [&](sim::Time t) {
    QueueEntry e{t, seq, seq * 3};
    if (t == now) {
      q.push_now(e);
    } else {
      q.push(e);
    }
    ref.emplace(t, seq++);
  };
  for (int swing = 0; swing < 6; ++swing) {
    const std::size_t target =
        swing % 2 == 0 ? EventQueue::kCalendarFrom * 12 : EventQueue::kHeapBelow / 2;
    for (int step = 0; step < 400000; ++step) {
      if (ref.size() == target) break;
      const bool grow = ref.size() < target;
      if (!ref.empty() && (grow ? rng.below(4) == 0 : rng.below(4) != 0)) {
        const sim::Time t = ref.begin()->first;
        if (rng.below(5) == 0) REQUIRE(q.top().key == ref.begin()->second);
        pop_both(q, ref);
        now = t;
      } else {
        push(now + (rng.below(3) == 0 ? 0 : static_cast<sim::Time>(rng.below(4000))));
      }
      if (q.calendar() != was_calendar) {
        (q.calendar() ? to_calendar : to_heap) += 1;
        was_calendar = q.calendar();
      }
    }
  }
  while (!ref.empty()) pop_both(q, ref);
  CHECK(to_calendar >= 3);
  CHECK(to_heap >= 2);
}

TEST_CASE("the event queue in calendar mode visits and retargets every entry once") {
  EventQueue q;
  std::uint64_t seq = 0;
  Lcg rng{17};
  for (int i = 0; i < 10000; ++i) {
    q.push(QueueEntry{static_cast<sim::Time>(rng.below(1000000)), seq, seq});
    ++seq;
  }
  for (int i = 0; i < 777; ++i) (void)q.pop();
  REQUIRE(q.calendar());
  std::set<std::uint64_t> seen;
  std::size_t visits = 0;
  q.for_each([&](const QueueEntry& e) {
    seen.insert(e.key);
    ++visits;
  });
  CHECK(visits == q.size());
  CHECK(seen.size() == q.size());
  q.retarget([](std::uint64_t t) { return t + 1; });
  std::size_t right = 0;
  q.for_each([&](const QueueEntry& e) { right += e.target == e.key + 1 ? 1 : 0; });
  CHECK(right == q.size());
}
