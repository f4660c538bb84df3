#pragma once
// The pending-event set: a 4-ary min-heap of 24-byte entries ordered by (time, key) while it is
// small, a calendar queue (sim/calendar_queue.hpp) once it is large, a ladder queue
// (sim/ladder_queue.hpp) once it is larger than the cache holds.
// Why 4-ary: half the depth of a binary heap, and the four children of a node share one or
// two cache lines, so a pop touches fewer lines. The sift-down picks the smallest child with a
// branch-free tournament over 128-bit ranks, which made PHOLD 20 % faster (docs/kernel.md,
// "Event queue", has the alternatives measured). Nothing is allocated per event once the
// vectors have grown.
//
// Which structure holds the entries is decided by their number alone (kCalendarFrom,
// kHeapBelow, kLadderFrom, kCalendarBelow), and all three pop in exactly (time, key) order,
// so the choice never changes a run.
//
// Beside the heap, a FIFO "now lane" takes entries pushed for the instant being executed (a
// quarter of all pushes in the April run: wake-ups, yields, spawns). They are all later in
// (time, key) than anything already queued for that instant, so they need no sifting; top() and
// pop() take the smaller of the main structure's next entry and the lane's front, so the order
// is exactly the heap-only order.
#include <cstdint>
#include <vector>

#include "sim/calendar_queue.hpp"
#include "sim/ladder_queue.hpp"
#include "sim/queue_entry.hpp"

namespace sim {

class EventQueue {
 public:
  // The deferred pop: pop() of the heap's root only marks the root consumed (a "hole"); the
  // next push() then fills the hole with one sift-down from the root (replace-top) instead of a
  // sift-down to remove the root plus a sift-up to insert. An event that schedules one more
  // (PHOLD, every sleep loop) pays one heap walk instead of two. The hole is closed before
  // anything else reads the heap, so the order is exactly the plain heap's.
  // Up to 64k entries (1.5 MiB, within this machine's 2 MiB L2) the branch-free tournament
  // wins; beyond, the heap misses cache and the branchy loop wins because the CPU speculates
  // into the next level's loads (PHOLD at N=65536: 1.2 vs 0.6-0.9 M events/s, docs/kernel.md).
  static constexpr std::size_t kBranchFreeMax = std::size_t{1} << 16;
  // The heap hands over to the calendar queue above kCalendarFrom entries and takes them back
  // below kHeapBelow (the gap keeps a size hovering at a bound from moving them to and fro).
  // PHOLD decides the bound (docs/kernel.md, "Event queue").
  static constexpr std::size_t kCalendarFrom = 256;
  static constexpr std::size_t kHeapBelow = 64;
  // The calendar hands over to the ladder above kLadderFrom entries and takes them back below
  // kCalendarBelow. At 64 Ki entries the calendar's nodes and bucket heads (2.3 MiB) outgrow
  // one core's L2 and its chain walks miss on every node; the ladder streams instead. PHOLD
  // decides the bound (docs/kernel.md, "The ladder above 64 Ki").
  static constexpr std::size_t kLadderFrom = std::size_t{1} << 16;
  static constexpr std::size_t kCalendarBelow = std::size_t{1} << 14;

  bool empty() const { return main_size() == 0 && lane_empty(); }
  std::size_t size() const { return main_size() + (lane_.size() - lane_head_); }
  const QueueEntry& top() {
    close_hole();
    if (lane_first()) return lane_[lane_head_];
    if (ladder_) return lad_.top();
    return calendar_ ? cal_.top() : heap_.front();
  }
  // An entry likely to pop soon after the next one (today's sorted run of the calendar, k
  // places on), or null: a hint for prefetching, not an order (the now lane may come first).
  const QueueEntry* ahead(std::size_t k) const {
    if (ladder_) return lad_.ahead(k);
    return calendar_ ? cal_.ahead(k) : nullptr;
  }
  void reserve(std::size_t n) { heap_.reserve(n); }
  bool calendar() const { return calendar_; }
  bool ladder() const { return ladder_; }
  const LadderQueue& ladder_queue() const { return lad_; }
  const CalendarQueue& calendar_queue() const { return cal_; }

  // For an entry whose time is the current instant: appended to the now lane while the lane
  // holds only entries of that same time (so it stays sorted; keys only grow), else the heap.
  void push_now(const QueueEntry& e) {
    if (lane_empty()) {
      lane_.clear();
      lane_head_ = 0;
    } else if (lane_.back().time != e.time) {
      push(e);
      return;
    }
    lane_.push_back(e);
  }

  void push(const QueueEntry& e) {
    if (ladder_) {
      lad_.push(e);
      return;
    }
    if (calendar_) {
      cal_.push(e);
      if (cal_.size() > kLadderFrom) to_ladder();
      return;
    }
    if (hole_) {
      hole_ = false;
      sift_down(0, e, heap_.size());
      return;
    }
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      std::size_t parent = (i - 1) / 4;
      if (!entry_before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
    if (heap_.size() > kCalendarFrom) to_calendar();
  }

  QueueEntry pop() {
    close_hole();
    if (lane_first()) return lane_[lane_head_++];
    if (ladder_) {
      const QueueEntry e = lad_.pop();
      if (lad_.size() < kCalendarBelow) to_calendar_from_ladder();
      return e;
    }
    if (calendar_) {
      const QueueEntry e = cal_.pop();
      if (cal_.size() < kHeapBelow) to_heap();
      return e;
    }
    hole_ = true;
    return heap_.front();
  }
  // Removes a consumed root nobody replaced (the event scheduled nothing into the heap).
  void close_hole() {
    if (!hole_) return;
    hole_ = false;
    pop_heap();
  }

  // For teardown and inspection only (heap order, then the lane).
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = hole_; i < heap_.size(); ++i) f(heap_[i]);
    cal_.for_each(f);
    lad_.for_each(f);
    for (std::size_t i = lane_head_; i < lane_.size(); ++i) f(lane_[i]);
  }
  // Rewrites targets in place (the kernel's generation wrap). f must not touch time or key:
  // the order depends on them only, so no entry moves.
  template <class F>
  void retarget(F&& f) {
    for (std::size_t i = hole_; i < heap_.size(); ++i) heap_[i].target = f(heap_[i].target);
    cal_.retarget(f);
    lad_.retarget(f);
    for (std::size_t i = lane_head_; i < lane_.size(); ++i) lane_[i].target = f(lane_[i].target);
  }
  void clear() {
    hole_ = false;
    calendar_ = false;
    ladder_ = false;
    cal_.clear();
    lad_.clear();
    heap_.clear();
    lane_.clear();
    lane_head_ = 0;
  }

 private:
  std::size_t main_size() const {
    if (ladder_) return lad_.size();
    return calendar_ ? cal_.size() : heap_.size() - hole_;
  }
  bool lane_empty() const { return lane_head_ == lane_.size(); }
  // Whether the next entry is the lane's front rather than the main structure's next one.
  bool lane_first() {
    if (lane_empty()) return false;
    if (ladder_) return lad_.empty() || entry_before(lane_[lane_head_], lad_.top());
    if (calendar_) return cal_.empty() || entry_before(lane_[lane_head_], cal_.top());
    return heap_.empty() || entry_before(lane_[lane_head_], heap_.front());
  }

  void to_calendar() {
    calendar_ = true;
    cal_.assign(heap_);
    heap_.clear();
  }
  // Both through heap_ (empty in these modes) as the scratch vector, so no allocation.
  void to_ladder() {
    ladder_ = true;
    calendar_ = false;
    cal_.drain_into(heap_);
    cal_ = CalendarQueue();  // give its node pool back
    lad_.assign(heap_);
    heap_.clear();
  }
  void to_calendar_from_ladder() {
    ladder_ = false;
    calendar_ = true;
    lad_.drain_into(heap_);
    lad_ = LadderQueue();  // give its buckets back
    cal_.assign(heap_);
    heap_.clear();
  }
  void to_heap() {
    calendar_ = false;
    heap_.clear();
    cal_.drain_into(heap_);
    // Floyd's heap construction: sift every parent down, the last first.
    const std::size_t n = heap_.size();
    for (std::size_t i = n < 2 ? 0 : (n - 2) / 4 + 1; i-- > 0;) {
      const QueueEntry e = heap_[i];  // a copy: the sift overwrites heap_[i]
      sift_down(i, e, n);
    }
  }

  void pop_heap() {
    QueueEntry last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, last, heap_.size());
  }

  // Places `last` at hole i of a heap of n entries, moving smaller children up.
  void sift_down(std::size_t i, const QueueEntry& last, const std::size_t n) {
    for (;;) {
      std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best;
      if (first + 4 <= n && n <= kBranchFreeMax) {
        // A full family in a cache-resident heap: a two-round tournament without data-dependent
        // branches. Which child is smallest is a coin flip, so a branchy loop mispredicts about
        // once per level.
        const QueueEntry* h = heap_.data();
        const std::size_t a = entry_before(h[first + 1], h[first]) ? first + 1 : first;
        const std::size_t b = entry_before(h[first + 3], h[first + 2]) ? first + 3 : first + 2;
        best = entry_before(h[b], h[a]) ? b : a;
      } else {
        best = first;
        const std::size_t end = first + 4 < n ? first + 4 : n;
        for (std::size_t c = first + 1; c < end; ++c) {
          if (entry_before_branchy(heap_[c], heap_[best])) best = c;
        }
      }
      if (!entry_before(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
  }

  std::vector<QueueEntry> heap_;
  std::vector<QueueEntry> lane_;  // [lane_head_, end) pending, all of one time, in key order
  std::size_t lane_head_ = 0;
  bool hole_ = false;      // heap_[0] was popped and awaits a replacement (see the class comment)
  bool calendar_ = false;  // the entries (but the lane's) are in cal_, heap_ is empty
  bool ladder_ = false;    // the entries (but the lane's) are in lad_, heap_ is empty
  CalendarQueue cal_;
  LadderQueue lad_;
};

}  // namespace sim
