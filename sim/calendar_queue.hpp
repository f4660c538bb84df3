#pragma once
// A calendar queue (R. Brown, "Calendar queues: a fast O(1) priority queue implementation for
// the simulation event set problem", CACM 31(10), 1988) with the ladder queue's sorted "bottom"
// (W. T. Tang, R. S. M. Goh, I. L.-J. Thng, "Ladder queue: an O(1) priority queue structure for
// large-scale discrete event simulation", ACM TOMACS 15(3), 2005) for the day being executed.
//
// Time is cut into days of 2^shift ns; day d lives in bucket d mod nb (nb a power of two), so
// one "year" of nb days wraps around the bucket array. A bucket is an unsorted chain of nodes
// (a push is O(1): link at the head). The day being executed, `today_`, is sorted once when it
// is opened (Tang's bottom): every entry of that day is unlinked from its chain, and the lot is
// sorted by (time, key). Later days stay unsorted until their turn. Entries of a later year that
// share a bucket stay on its chain; a year with no entry at all ends the day-by-day walk with a
// direct search for the earliest day.
//
// The order is exact: bottom_ holds every entry of days <= today_, sorted by (time, key); the
// chains hold only later days, whose times are all larger. So a pop returns exactly what a heap
// ordered by (time, key) would (tests/sim/test_calendar_queue.cpp compares them).
//
// Resize (Brown): nb follows the number of entries (doubling above 2 per bucket, halving below
// one per eight), and the day length is re-estimated from the density of the earliest eighth of
// the entries, so a day holds a few entries; far-future outliers do not stretch it. When the
// estimate goes stale without a size change (the load changes), the walk notices: too many empty
// days or too full ones per opened day trigger a re-estimate.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/queue_entry.hpp"

namespace sim {

class CalendarQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void push(const QueueEntry& e) {
    ++size_;
    const std::uint64_t d = day_of(e);
    if (d <= today_) {
      insert_sorted(e);  // a time inside the day being executed
    } else {
      link(e, d);
    }
  }
  // The earliest entry (opens the next non-empty day if today's are used up). Not empty().
  const QueueEntry& top() {
    if (bottom_head_ == bottom_.size()) open_next_day();
    return bottom_[bottom_head_];
  }
  // The entry k places after the next one, if today's sorted run holds it (else null): what
  // the run loop prefetches. Looks only, never opens a day.
  const QueueEntry* ahead(std::size_t k) const {
    const std::size_t i = bottom_head_ + k;
    return i < bottom_.size() ? &bottom_[i] : nullptr;
  }
  QueueEntry pop() {
    const QueueEntry e = top();
    ++bottom_head_;
    --size_;
    if (size_ < heads_.size() / 8 && heads_.size() > kMinBuckets) resize();
    return e;
  }

  // Replaces the content with `entries` (any order): the day length and the bucket count are
  // estimated from them. The heap hands its entries over through this.
  void assign(std::vector<QueueEntry>& entries) {
    clear();
    size_ = entries.size();
    rebuild(entries);
  }
  // Moves every entry out (any order), leaving the queue empty.
  void drain_into(std::vector<QueueEntry>& out) {
    collect(out);
    clear();
  }

  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = bottom_head_; i < bottom_.size(); ++i) f(bottom_[i]);
    for (std::uint32_t head : heads_) {
      for (std::uint32_t n = head; n != kNil; n = nodes_[n].next) f(nodes_[n].e);
    }
  }
  // Rewrites targets in place; f must not change time or key (nothing moves).
  template <class F>
  void retarget(F&& f) {
    for (std::size_t i = bottom_head_; i < bottom_.size(); ++i) {
      bottom_[i].target = f(bottom_[i].target);
    }
    for (std::uint32_t head : heads_) {
      for (std::uint32_t n = head; n != kNil; n = nodes_[n].next) {
        nodes_[n].e.target = f(nodes_[n].e.target);
      }
    }
  }
  void clear() {
    heads_.assign(heads_.size(), kNil);
    nodes_.clear();
    free_ = kNil;
    bottom_.clear();
    bottom_head_ = 0;
    size_ = 0;
    today_ = 0;
    inserted_today_ = 0;
    reset_walk_stats();
  }

  // For the tests: the current geometry.
  std::size_t buckets() const { return heads_.size(); }
  unsigned day_shift() const { return shift_; }
  std::uint64_t rebuilds() const { return rebuilds_; }

 private:
  static constexpr std::uint32_t kNil = 0xFFFFFFFFU;
  static constexpr std::size_t kMinBuckets = 64;
  // More entries than this pushed into the day being executed ask for shorter days.
  static constexpr std::size_t kInsertLimit = 256;
  struct Node {
    QueueEntry e;
    std::uint32_t next;
  };

  static std::uint64_t biased(Time t) { return biased_time(t); }
  std::uint64_t day_of(const QueueEntry& e) const { return biased(e.time) >> shift_; }

  void link(const QueueEntry& e, std::uint64_t day) {
    std::uint32_t n;
    if (free_ != kNil) {
      n = free_;  // LIFO: the node just freed by opening a day, still in cache
      free_ = nodes_[n].next;
    } else {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(Node{});
    }
    std::uint32_t& head = heads_[day & (heads_.size() - 1)];
    nodes_[n].e = e;
    nodes_[n].next = head;
    head = n;
    if (size_ > 2 * heads_.size()) resize();
  }

  void insert_sorted(const QueueEntry& e) {
    insert_sorted_from_back(bottom_, bottom_head_, e);
    // Days too long for the density: the day being executed keeps receiving entries (each
    // insertion moves the later ones) and the walk never runs to notice. Re-estimate; if that
    // did not shorten the day (equal times cannot be split), wait for twice as many first.
    if (++inserted_today_ > insert_limit_) {
      const unsigned before = shift_;
      resize();
      insert_limit_ = shift_ < before ? kInsertLimit : 2 * insert_limit_;
    }
  }

  // Unlinks every entry of day `d` from its bucket's chain into bottom_ (unsorted).
  void take_day(std::uint64_t d) {
    std::uint32_t* link = &heads_[d & (heads_.size() - 1)];
    for (std::uint32_t n = *link; n != kNil;) {
      Node& node = nodes_[n];
      const std::uint32_t next = node.next;
      if (day_of(node.e) == d) {
        bottom_.push_back(node.e);
        *link = next;
        node.next = free_;
        free_ = n;
      } else {
        link = &node.next;
      }
      n = next;
    }
  }

  // bottom_ is used up and size_ > 0: walks to the next day holding entries and sorts them.
  void open_next_day() {
    bottom_.clear();
    bottom_head_ = 0;
    const std::size_t nb = heads_.size();
    std::size_t steps = 0;
    for (;;) {
      ++today_;
      ++steps;
      if (heads_[today_ & (nb - 1)] != kNil) {
        take_day(today_);
        if (!bottom_.empty()) break;
      }
      if (steps >= nb) {
        // A whole year without an entry: jump to the earliest day directly (Brown's search).
        today_ = earliest_day();
        take_day(today_);
        break;
      }
    }
    sort_bottom();
    inserted_today_ = 0;
    note_walk(steps, bottom_.size());
  }

  void sort_bottom() {
    std::sort(bottom_.begin(), bottom_.end(),
              [](const QueueEntry& a, const QueueEntry& b) { return entry_before(a, b); });
  }

  std::uint64_t earliest_day() const {
    std::uint64_t best = ~std::uint64_t{0};
    for (std::uint32_t head : heads_) {
      for (std::uint32_t n = head; n != kNil; n = nodes_[n].next) {
        best = std::min(best, day_of(nodes_[n].e));
      }
    }
    return best;
  }

  // The walk's statistics since the last estimate: if days are mostly empty, or hold many
  // entries each, the day length no longer fits the density (Brown re-estimates only on
  // resizes; a run whose load changes at a constant size needs this too).
  void note_walk(std::size_t steps, std::size_t taken) {
    days_walked_ += steps;
    days_opened_ += 1;
    entries_opened_ += taken;
    // Judge once the walk has seen enough: a year of opened days, the whole population taken
    // twice, or many years of empty days (each rebuild is O(size), paid for by that much walk).
    const std::size_t nb = heads_.size();
    if (days_opened_ < nb && entries_opened_ < 2 * size_ && days_walked_ < 16 * nb) return;
    const bool too_fine = days_walked_ > 16 * entries_opened_;
    const bool too_coarse = entries_opened_ > 16 * days_opened_;
    if (too_fine || too_coarse) {
      resize();
    } else {
      reset_walk_stats();
    }
  }
  void reset_walk_stats() {
    days_walked_ = 0;
    days_opened_ = 0;
    entries_opened_ = 0;
  }

  void collect(std::vector<QueueEntry>& out) const {
    out.reserve(out.size() + size_);
    for_each([&out](const QueueEntry& e) { out.push_back(e); });
  }

  void resize() {
    std::vector<QueueEntry> all;
    collect(all);
    rebuild(all);
  }

  // Lays `all` (size_ entries, any order) out afresh: bucket count from the size, day length
  // from the density of the earliest eighth, today_ = the earliest entry's day.
  void rebuild(std::vector<QueueEntry>& all) {
    ++rebuilds_;
    reset_walk_stats();
    const std::size_t n = all.size();
    const std::size_t nb = std::max(kMinBuckets, std::bit_ceil(n) / 2);
    heads_.assign(nb, kNil);
    nodes_.clear();
    nodes_.reserve(n + n / 2);
    free_ = kNil;
    bottom_.clear();
    bottom_head_ = 0;
    if (n == 0) {
      today_ = 0;
      return;
    }
    shift_ = estimate_shift(all);
    std::uint64_t first = ~std::uint64_t{0};
    for (const QueueEntry& e : all) first = std::min(first, day_of(e));
    today_ = first;
    for (const QueueEntry& e : all) {
      const std::uint64_t d = day_of(e);
      if (d == today_) {
        bottom_.push_back(e);
      } else {
        std::uint32_t idx = static_cast<std::uint32_t>(nodes_.size());
        std::uint32_t& head = heads_[d & (nb - 1)];
        nodes_.push_back(Node{e, head});
        head = idx;
      }
    }
    sort_bottom();
  }

  // A day of about four entries where the queue is densest (its earliest eighth: the part the
  // next walk covers), rounded down to a power of two so a day number is a shift.
  unsigned estimate_shift(std::vector<QueueEntry>& all) const {
    const std::size_t n = all.size();
    const std::size_t k = std::max<std::size_t>(1, n / 8);
    if (n < 2) return shift_;
    auto kth = all.begin() + static_cast<std::ptrdiff_t>(std::min(k, n - 1));
    std::nth_element(all.begin(), kth, all.end(),
                     [](const QueueEntry& a, const QueueEntry& b) { return a.time < b.time; });
    const std::uint64_t hi = biased(kth->time);
    std::uint64_t lo = hi;
    for (auto it = all.begin(); it != kth; ++it) lo = std::min(lo, biased(it->time));
    const std::uint64_t per_entry = (hi - lo) / static_cast<std::uint64_t>(kth - all.begin());
    const std::uint64_t day = std::max<std::uint64_t>(1, 4 * per_entry);
    return static_cast<unsigned>(std::bit_width(day) - 1);
  }

  std::vector<std::uint32_t> heads_ = std::vector<std::uint32_t>(kMinBuckets, kNil);
  std::vector<Node> nodes_;
  std::uint32_t free_ = kNil;       // free nodes, chained through next
  std::vector<QueueEntry> bottom_;  // [bottom_head_, end): days <= today_, sorted
  std::size_t bottom_head_ = 0;
  std::size_t inserted_today_ = 0;  // pushes into the day being executed since it opened
  std::size_t insert_limit_ = kInsertLimit;
  std::size_t size_ = 0;
  std::uint64_t today_ = 0;  // the day being executed (in days of 2^shift_ biased ns)
  unsigned shift_ = 10;
  std::uint64_t days_walked_ = 0;
  std::uint64_t days_opened_ = 0;
  std::uint64_t entries_opened_ = 0;
  std::uint64_t rebuilds_ = 0;
};

}  // namespace sim
