#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "sim/event_queue.hpp"

using sim::EventQueue;
using sim::QueueEntry;

TEST_CASE("the now lane keeps the exact (time, key) order of the heap alone") {
  // Drive two queues like the kernel does: pop the next entry, advance the clock to it, push a
  // few entries at or after the clock. One queue routes entries for the current time to the
  // now lane; the other only uses the heap. They must pop the same sequence.
  EventQueue with_lane;
  EventQueue heap_only;
  std::uint64_t seq = 0;
  std::uint64_t x = 7;
  auto next = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 33;
  };
  sim::Time now = 0;
  auto push = [&](sim::Time t) {
    QueueEntry e{t, seq++, 0};
    if (t == now) {
      with_lane.push_now(e);
    } else {
      with_lane.push(e);
    }
    heap_only.push(e);
  };
  for (int i = 0; i < 100; ++i) push(static_cast<sim::Time>(next() % 50));
  std::size_t popped = 0;
  while (!heap_only.empty()) {
    REQUIRE(with_lane.size() == heap_only.size());
    REQUIRE(with_lane.top().key == heap_only.top().key);
    QueueEntry a = with_lane.pop();
    QueueEntry b = heap_only.pop();
    REQUIRE(a.time == b.time);
    REQUIRE(a.key == b.key);
    now = a.time;
    if (++popped < 200000) {
      for (std::uint64_t k = next() % 3; k > 0; --k) {
        push(now + (next() % 2 == 0 ? 0 : static_cast<sim::Time>(next() % 20)));
      }
    }
  }
  CHECK(with_lane.empty());
}

TEST_CASE("the deferred pop (replace-top) keeps the exact (time, key) order of a sorted set") {
  // The kernel's pattern: pop, then zero, one or several pushes (or a size()/top() query in
  // between), against std::set as the reference order.
  EventQueue q;
  std::set<std::pair<sim::Time, std::uint64_t>> ref;
  std::uint64_t seq = 0;
  std::uint64_t x = 11;
  auto next = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 33;
  };
  auto push = [&](sim::Time t) {
    q.push(QueueEntry{t, seq, 0});
    ref.emplace(t, seq++);
  };
  for (int i = 0; i < 5000; ++i) push(static_cast<sim::Time>(next() % 1000));
  for (int step = 0; step < 300000 && !ref.empty(); ++step) {
    REQUIRE(q.size() == ref.size());
    QueueEntry e = q.pop();
    REQUIRE(e.time == ref.begin()->first);
    REQUIRE(e.key == ref.begin()->second);
    ref.erase(ref.begin());
    const std::uint64_t r = next() % 8;
    if (r == 0) continue;                          // nothing scheduled: the hole is closed later
    if (r == 1 && !ref.empty()) REQUIRE(q.top().key == ref.begin()->second);  // query first
    for (std::uint64_t k = (r == 7 ? 3 : 1); k > 0; --k) {
      push(e.time + static_cast<sim::Time>(next() % 500));
    }
  }
}
