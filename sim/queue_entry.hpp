#pragma once
// One pending event as the kernel queues it, and the (time, key) order every queue structure
// (sim/event_queue.hpp's heap, sim/calendar_queue.hpp) pops it in.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/time.hpp"

namespace sim {

struct QueueEntry {
  Time time;
  // The global insertion sequence: FIFO among equal times, never pointer order.
  std::uint64_t key;
  // What the entry wakes, encoded by the Simulation: a Handler address with the low bit set, or
  // a process slot (index, generation) with the low bit clear (sim/simulation.cpp).
  std::uint64_t target;
};
static_assert(sizeof(QueueEntry) == 24);

// (time, key) compared as one unsigned 128-bit number (time's sign bit flipped so negative
// times still sort first): GCC emits cmp/sbb and a conditional move instead of two branches.
// The time as an unsigned number in the same order (negative times first).
inline std::uint64_t biased_time(Time t) {
  return static_cast<std::uint64_t>(t) ^ (std::uint64_t{1} << 63);
}
inline unsigned __int128 entry_rank(const QueueEntry& e) {
  return (static_cast<unsigned __int128>(biased_time(e.time)) << 64) | e.key;
}
inline bool entry_before(const QueueEntry& a, const QueueEntry& b) {
  return entry_rank(a) < entry_rank(b);
}
// The same order with branches: better once the heap misses cache (see EventQueue::pop).
inline bool entry_before_branchy(const QueueEntry& a, const QueueEntry& b) {
  return a.time < b.time || (a.time == b.time && a.key < b.key);
}

// Inserts e into the sorted run [head, end) of v. A push into the day (or bucket) being
// executed is usually later than most of it, so the search runs from the end.
inline void insert_sorted_from_back(std::vector<QueueEntry>& v, std::size_t head,
                                    const QueueEntry& e) {
  auto first = v.begin() + static_cast<std::ptrdiff_t>(head);
  auto at = v.end();
  while (at != first && entry_rank(e) < entry_rank(*(at - 1))) --at;
  v.insert(at, e);
}

}  // namespace sim
