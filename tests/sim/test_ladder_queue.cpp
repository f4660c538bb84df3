#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "sim/event_queue.hpp"
#include "sim/ladder_queue.hpp"
#include "tests/sim/queue_check.hpp"

using sim::EventQueue;
using sim::LadderQueue;
using sim::QueueEntry;

using queue_check::Lcg;
using queue_check::pop_both;
using queue_check::push_both;
using queue_check::Ref;

TEST_CASE("the ladder queue pops in exact (time, key) order through growth and shrinkage") {
  // A hold model growing to ~80k entries and draining: delays from 0 (ties broken by key) to
  // long, so entries land in the bottom, in every rung and in the top.
  LadderQueue q;
  Ref ref;
  std::uint64_t seq = 0;
  Lcg rng{7};
  sim::Time now = 0;
  auto delay = [&]() -> sim::Time {
    switch (rng.below(6)) {
      case 0:
        return 0;
      case 1:
        return static_cast<sim::Time>(rng.below(10));
      case 2:
        return static_cast<sim::Time>(rng.below(10000000));
      default:
        return static_cast<sim::Time>(rng.below(50000));
    }
  };
  std::size_t deepest = 0;
  for (int phase = 0; phase < 2; ++phase) {
    for (int step = 0; step < 150000; ++step) {
      const bool grow = phase == 0;
      if (!ref.empty() && (grow ? rng.below(3) == 0 : rng.below(3) != 0)) {
        const sim::Time t = ref.begin()->first;
        pop_both(q, ref);
        now = t;
        deepest = std::max(deepest, q.depth());
      } else {
        push_both(q, ref, now + delay(), seq);
      }
    }
  }
  while (!ref.empty()) pop_both(q, ref);
  CHECK(q.empty());
  CHECK(q.spawns() > 10);  // buckets were split into finer rungs, not just sorted
  CHECK(deepest >= 2);
}

TEST_CASE("the ladder queue keeps exact order with outliers at both ends of time") {
  LadderQueue q;
  Ref ref;
  std::uint64_t seq = 0;
  Lcg rng{11};
  for (int i = 0; i < 30000; ++i) push_both(q, ref, static_cast<sim::Time>(rng.below(1000000)), seq);
  for (int i = 0; i < 5; ++i) push_both(q, ref, sim::kTimeMax, seq);
  for (int i = 0; i < 5; ++i) push_both(q, ref, 1000000000000000LL + i, seq);
  push_both(q, ref, -5, seq);
  push_both(q, ref, -sim::kTimeMax, seq);
  for (int step = 0; step < 200000 && !ref.empty(); ++step) {
    const sim::Time now = ref.begin()->first;
    pop_both(q, ref);
    if (now >= 0 && now < 2000000 && rng.below(2) == 0) {
      const sim::Time d =
          rng.below(50) == 0 ? 5000000000LL : static_cast<sim::Time>(rng.below(3000));
      push_both(q, ref, now + d, seq);
    }
    if (step % 5000 == 0) push_both(q, ref, sim::kTimeMax, seq);  // joins the equal-time tail
  }
  while (!ref.empty()) pop_both(q, ref);
}

TEST_CASE("the ladder queue is FIFO among equal times and splits a bottom grown by insertions") {
  LadderQueue q;
  Ref ref;
  std::uint64_t seq = 0;
  Lcg rng{13};
  for (int i = 0; i < 3000; ++i) push_both(q, ref, 1000, seq);
  for (int i = 0; i < 3000; ++i) push_both(q, ref, 1000 + static_cast<sim::Time>(i % 7), seq);
  for (int i = 0; i < 100000; ++i) {
    push_both(q, ref, 2000000 + static_cast<sim::Time>(rng.below(1000000)), seq);
  }
  for (int i = 0; i < 100; ++i) pop_both(q, ref);
  for (int i = 0; i < 500; ++i) push_both(q, ref, 1000 + static_cast<sim::Time>(i % 3), seq);
  // A dense burst inside the bucket being executed: thousands of insertions into the bottom.
  while (ref.begin()->first < 2000000) pop_both(q, ref);
  const std::uint64_t spawns = q.spawns();
  for (int k = 0; k < 20; ++k) {
    const sim::Time now = ref.begin()->first;
    pop_both(q, ref);
    for (int i = 0; i < 3000; ++i) push_both(q, ref, now + static_cast<sim::Time>(rng.below(2)), seq);
  }
  CHECK(q.spawns() > spawns);
  while (!ref.empty()) pop_both(q, ref);
}

TEST_CASE("the ladder queue keeps order for pushes after a split bottom's last entry") {
  // The bottom stands for the whole bucket being executed, [its start, low_), but a dense
  // burst that splits it may end long before low_. A later push between the burst's last
  // time and low_ must still come out before everything at or after low_; the split rung once
  // ended at the burst's last time, and such a push went to the parent's bucket already taken
  // and popped only a cycle later (found by scenarios/april-in-yaml.yaml, seed 2: a Scylla
  // shard's wake-up 0.5 s late).
  LadderQueue q;
  Ref ref;
  std::uint64_t seq = 0;
  Lcg rng{29};
  // Wide spread: rung 0's buckets are ~1 ms wide, the bottom is one of them.
  for (int i = 0; i < 100000; ++i) {
    push_both(q, ref, static_cast<sim::Time>(rng.below(1000000000)), seq);
  }
  pop_both(q, ref);
  const sim::Time now = ref.begin()->first;
  const std::uint64_t spawns = q.spawns();
  // A burst at now .. now + 100 ns: the bottom outgrows kBottomMax and is split.
  for (int i = 0; i < 5000; ++i)
    push_both(q, ref, now + static_cast<sim::Time>(rng.below(100)), seq);
  REQUIRE(q.spawns() > spawns);
  // Later pushes past the burst, many inside the same bucket (rung 1's are 16 us wide here).
  for (int i = 0; i < 2000; ++i) {
    push_both(q, ref, now + 100 + static_cast<sim::Time>(rng.below(20000)), seq);
  }
  while (!ref.empty()) pop_both(q, ref);
}

TEST_CASE("the event queue moves between calendar and ladder at its bounds with the same order") {
  EventQueue q;
  Ref ref;
  std::uint64_t seq = 0;
  Lcg rng{17};
  sim::Time now = 0;
  bool saw_ladder = false;
  bool back_to_calendar = false;
  // Grow past kLadderFrom, hold, then drain below kCalendarBelow and to empty.
  for (int i = 0; i < 80000; ++i) push_both(q, ref, now + static_cast<sim::Time>(rng.below(1000000)), seq);
  saw_ladder = q.ladder();
  for (int i = 0; i < 100000; ++i) {
    now = ref.begin()->first;
    pop_both(q, ref);
    push_both(q, ref, now + 100000 + static_cast<sim::Time>(rng.below(2000000)), seq);
  }
  CHECK(q.ladder());
  while (!ref.empty()) {
    pop_both(q, ref);
    if (q.size() < EventQueue::kCalendarBelow && q.calendar() && !q.ladder()) back_to_calendar = true;
  }
  CHECK(saw_ladder);
  CHECK(back_to_calendar);
  CHECK(q.empty());
}
