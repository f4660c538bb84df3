#pragma once
// A ladder queue (after W. T. Tang, R. S. M. Goh, I. L.-J. Thng, "Ladder queue: an O(1)
// priority queue structure for large-scale discrete event simulation", ACM TOMACS 15(3), 2005)
// for the largest pending sets, where the calendar queue's chains miss cache on every node.
//
// Three tiers, each holding later times than the one below it:
//   top     unsorted entries at or after the ladder's end (appended: a sequential write);
//   rungs   up to kMaxRungs arrays of buckets; a bucket is a contiguous vector of unsorted
//           entries covering 2^shift biased ns. Rung r+1 covers exactly one bucket of rung r
//           (the one last taken from it), split finer;
//   bottom  the entries of the bucket being executed, sorted by (time, key).
// Every move between tiers reads its source sequentially and writes into at most kMaxBuckets
// streams whose tails stay in cache; a pop reads the sorted bottom in order. At a million
// pending entries this replaces the calendar's dependent misses (one per chain node, one per
// bucket head) by streaming reads and writes (docs/kernel.md, "The ladder above 64 Ki").
//
// The order is exact: bottom_ holds every entry below low_ (the start of the deepest rung's
// next bucket), sorted; rung buckets and top_ hold only entries at or above it, partitioned
// by time. So a pop returns exactly what a heap ordered by (time, key) would
// (tests/sim/test_ladder_queue.cpp compares them).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/queue_entry.hpp"

namespace sim {

class LadderQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void push(const QueueEntry& e) {
    ++size_;
    const std::uint64_t b = biased(e.time);
    if (b < low_) {
      insert_sorted(e);
      return;
    }
    for (std::size_t r = depth_; r-- > 0;) {
      Rung& rung = rungs_[r];
      if (b < rung.end) {
        rung.bucket_for(b).push_back(e);
        return;
      }
    }
    top_.push_back(e);
    top_min_ = std::min(top_min_, b);
    top_max_ = std::max(top_max_, b);
  }
  // The earliest entry. Not empty().
  const QueueEntry& top() {
    if (bottom_head_ == bottom_.size()) refill();
    return bottom_[bottom_head_];
  }
  // The entry k places after the next one, if the sorted bottom holds it (else null).
  const QueueEntry* ahead(std::size_t k) const {
    const std::size_t i = bottom_head_ + k;
    return i < bottom_.size() ? &bottom_[i] : nullptr;
  }
  QueueEntry pop() {
    const QueueEntry e = top();
    ++bottom_head_;
    --size_;
    return e;
  }

  // Replaces the content with `entries` (any order).
  void assign(std::vector<QueueEntry>& entries) {
    clear();
    size_ = entries.size();
    for (const QueueEntry& e : entries) {
      top_min_ = std::min(top_min_, biased(e.time));
      top_max_ = std::max(top_max_, biased(e.time));
    }
    top_.swap(entries);
    entries.clear();
  }
  // Moves every entry out (any order), leaving the queue empty.
  void drain_into(std::vector<QueueEntry>& out) {
    out.reserve(out.size() + size_);
    for_each([&out](const QueueEntry& e) { out.push_back(e); });
    clear();
  }

  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = bottom_head_; i < bottom_.size(); ++i) f(bottom_[i]);
    for (std::size_t r = 0; r < depth_; ++r) {
      for (std::size_t i = rungs_[r].next; i < rungs_[r].buckets.size(); ++i) {
        for (const QueueEntry& e : rungs_[r].buckets[i]) f(e);
      }
    }
    for (const QueueEntry& e : top_) f(e);
  }
  // Rewrites targets in place; f must not change time or key (nothing moves).
  template <class F>
  void retarget(F&& f) {
    for (std::size_t i = bottom_head_; i < bottom_.size(); ++i) {
      bottom_[i].target = f(bottom_[i].target);
    }
    for (std::size_t r = 0; r < depth_; ++r) {
      for (std::size_t i = rungs_[r].next; i < rungs_[r].buckets.size(); ++i) {
        for (QueueEntry& e : rungs_[r].buckets[i]) e.target = f(e.target);
      }
    }
    for (QueueEntry& e : top_) e.target = f(e.target);
  }
  void clear() {
    for (std::size_t r = 0; r < depth_; ++r) {
      for (auto& b : rungs_[r].buckets) b.clear();
    }
    depth_ = 0;
    top_.clear();
    top_min_ = ~std::uint64_t{0};
    top_max_ = 0;
    bottom_.clear();
    bottom_head_ = 0;
    low_ = 0;
    size_ = 0;
  }

  // For the tests.
  std::size_t depth() const { return depth_; }
  std::uint64_t spawns() const { return spawns_; }

 private:
  // Buckets per rung at most: 1024 vector headers (24 KiB) and their tail lines stay in L2.
  static constexpr std::size_t kMaxBuckets = 1024;
  static constexpr std::size_t kMaxRungs = 8;
  // A bucket with more entries than this is split into a finer rung instead of being sorted.
  static constexpr std::size_t kSplitAbove = 64;
  // A bucket whose capacity exceeds this is given back once emptied, so a million entries
  // that passed through one rung do not leave every bucket at its largest size.
  static constexpr std::size_t kKeepCapacity = 4096;
  // A sorted bottom longer than this (after insertions) is split into a rung.
  static constexpr std::size_t kBottomMax = 4096;
  using Bucket = std::vector<QueueEntry>;
  struct Rung {
    std::uint64_t start = 0;  // biased time of bucket 0
    unsigned __int128 end = 0;  // start + buckets << shift (may pass 2^64)
    unsigned shift = 0;
    std::size_t next = 0;  // the next bucket to take; those before it are empty
    std::vector<Bucket> buckets;
    // The bucket of an entry at biased time b (start <= b < end).
    Bucket& bucket_for(std::uint64_t b) { return buckets[(b - start) >> shift]; }
  };

  static std::uint64_t biased(Time t) { return biased_time(t); }

  void insert_sorted(const QueueEntry& e) {
    insert_sorted_from_back(bottom_, bottom_head_, e);
    // Many entries pushed into the bucket being executed (a dense burst inside it): each
    // insertion moves the later ones, so the sorted run becomes a rung of its own once large.
    if (bottom_.size() - bottom_head_ > kBottomMax) split_bottom();
  }

  // Turns the rest of bottom_ into a new deepest rung covering [its first time, low_): the
  // whole range the bottom stands for, not only up to its last entry, or a later push between
  // that entry and low_ would find no rung but the parent, whose bucket for it is taken.
  void split_bottom() {
    const std::uint64_t lo = biased(bottom_[bottom_head_].time);
    if (lo == biased(bottom_.back().time) || depth_ == kMaxRungs) return;  // equal times
    const std::size_t n = bottom_.size() - bottom_head_;
    const auto last = static_cast<std::uint64_t>(
        std::min<unsigned __int128>(low_ - 1, ~std::uint64_t{0}));  // low_ > every entry
    Rung& c = open_rung(lo, last, n, 63);
    c.end = std::min(c.end, low_);  // pushes at or after low_ still belong to the parent
    for (std::size_t i = bottom_head_; i < bottom_.size(); ++i) {
      c.bucket_for(biased(bottom_[i].time)).push_back(bottom_[i]);
    }
    bottom_.clear();
    bottom_head_ = 0;
    low_ = c.start;
    ++spawns_;
  }

  static void release(Bucket& b) {
    if (b.capacity() > kKeepCapacity) {
      Bucket().swap(b);
    } else {
      b.clear();
    }
  }

  // Lays `n` entries spanning biased times [lo, hi] over a fresh rung at depth depth_.
  Rung& open_rung(std::uint64_t lo, std::uint64_t hi, std::size_t n, unsigned max_shift) {
    if (depth_ == rungs_.size()) rungs_.emplace_back();
    Rung& r = rungs_[depth_++];
    const std::size_t want = std::clamp<std::size_t>(std::bit_ceil(n / 4 + 1), 2, kMaxBuckets);
    // The smallest shift whose buckets cover [lo, hi] in `want` buckets or fewer.
    const std::uint64_t span = hi - lo;
    unsigned shift = 0;
    while (shift < 63 && (span >> shift) >= want) ++shift;
    shift = std::min(shift, max_shift);
    const std::uint64_t count = std::min<std::uint64_t>(want, (span >> shift) + 1);
    r.start = lo;
    r.shift = shift;
    r.end = static_cast<unsigned __int128>(lo) + (static_cast<unsigned __int128>(count) << shift);
    r.next = 0;
    r.buckets.resize(count);
    return r;
  }

  // bottom_ is used up and size_ > 0: takes the next non-empty bucket of the deepest rung
  // (splitting it while it is large), or lays the top out as a new ladder.
  void refill() {
    bottom_.clear();
    bottom_head_ = 0;
    for (;;) {
      if (depth_ == 0) {
        // Only the top is left: it becomes rung 0.
        Rung& r = open_rung(top_min_, top_max_, top_.size(), 63);
        for (const QueueEntry& e : top_) r.bucket_for(biased(e.time)).push_back(e);
        top_.clear();  // one vector, refilled every round: its capacity is kept
        top_min_ = ~std::uint64_t{0};
        top_max_ = 0;
        low_ = r.start;
        continue;
      }
      Rung& r = rungs_[depth_ - 1];
      while (r.next < r.buckets.size() && r.buckets[r.next].empty()) ++r.next;
      if (r.next == r.buckets.size()) {
        // This rung is used up; its parent continues right after the bucket it covered.
        --depth_;
        continue;
      }
      const std::size_t j = r.next++;
      Bucket& b = r.buckets[j];
      const std::uint64_t bucket_start = r.start + (static_cast<std::uint64_t>(j) << r.shift);
      low_ = std::min<unsigned __int128>(
          r.end, static_cast<unsigned __int128>(bucket_start) + (std::uint64_t{1} << r.shift));
      if (b.size() > kSplitAbove && r.shift > 0 && depth_ < kMaxRungs) {
        std::uint64_t lo = ~std::uint64_t{0};
        std::uint64_t hi = 0;
        for (const QueueEntry& e : b) {
          lo = std::min(lo, biased(e.time));
          hi = std::max(hi, biased(e.time));
        }
        if (lo != hi) {
          // The child covers exactly this bucket: from its start, in finer buckets.
          const unsigned parent_shift = r.shift;
          Bucket taken;
          taken.swap(b);  // r may move when rungs_ grows
          const std::uint64_t last = static_cast<std::uint64_t>(std::min<unsigned __int128>(
              low_ - 1, ~std::uint64_t{0}));  // the bucket's last biased ns
          Rung& c = open_rung(bucket_start, last, taken.size(), parent_shift - 1);
          c.end = std::min<unsigned __int128>(c.end, low_);
          for (const QueueEntry& e : taken) {
            c.bucket_for(biased(e.time)).push_back(e);
          }
          // The parent's bucket j was swapped empty above: give it back the (released)
          // storage, so the next pass through this rung reuses it.
          release(taken);
          rungs_[depth_ - 2].buckets[j].swap(taken);
          low_ = c.start;
          ++spawns_;
          continue;
        }
      }
      bottom_.swap(b);
      release(b);
      std::sort(bottom_.begin(), bottom_.end(),
                [](const QueueEntry& a, const QueueEntry& z) { return entry_before(a, z); });
      return;
    }
  }

  std::vector<Rung> rungs_;  // [0, depth_) in use; deeper ones keep their bucket arrays
  std::size_t depth_ = 0;
  Bucket top_;
  std::uint64_t top_min_ = ~std::uint64_t{0};
  std::uint64_t top_max_ = 0;
  Bucket bottom_;  // [bottom_head_, end): every entry below low_, sorted
  std::size_t bottom_head_ = 0;
  unsigned __int128 low_ = 0;  // biased (may be 2^64): entries below it belong in bottom_
  std::size_t size_ = 0;
  std::uint64_t spawns_ = 0;
};

}  // namespace sim
