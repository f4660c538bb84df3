#pragma once
// The pending-event set: a 4-ary min-heap of 24-byte entries ordered by (time, key).
// Why 4-ary: half the depth of a binary heap, and the four children of a node share one or
// two cache lines, so a pop touches fewer lines; measured against std::priority_queue and a
// binary heap in docs/kernel.md. Nothing is allocated per event once the vector has grown.
#include <cstdint>
#include <vector>

#include "sim/time.hpp"

namespace sim {

struct QueueEntry {
  Time time;
  // Upper 40 bits: global insertion sequence (FIFO among equal times, never pointer order).
  // Lower 24 bits: the wake generation a coroutine target must still have (stale otherwise).
  std::uint64_t key;
  void* target;
};
static_assert(sizeof(QueueEntry) == 24);

inline bool entry_before(const QueueEntry& a, const QueueEntry& b) {
  return a.time < b.time || (a.time == b.time && a.key < b.key);
}

class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const QueueEntry& top() const { return heap_.front(); }
  void reserve(std::size_t n) { heap_.reserve(n); }

  void push(const QueueEntry& e) {
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      std::size_t parent = (i - 1) / 4;
      if (!entry_before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  QueueEntry pop() {
    QueueEntry out = heap_.front();
    QueueEntry last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return out;
    std::size_t i = 0;
    for (;;) {
      std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      std::size_t end = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < end; ++c) {
        if (entry_before(heap_[c], heap_[best])) best = c;
      }
      if (!entry_before(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    return out;
  }

  // For teardown and inspection only (order is heap order, not time order).
  const std::vector<QueueEntry>& raw() const { return heap_; }
  void clear() { heap_.clear(); }

 private:
  std::vector<QueueEntry> heap_;
};

}  // namespace sim
