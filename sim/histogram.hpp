#pragma once
// A mergeable log-linear histogram of non-negative integers (latencies in ns, sizes in bytes).
// Values are bucketed by their power of two and then into 2^kSubBits linear sub-buckets, as
// in HdrHistogram: any reported quantile is within a relative error of 2^-kSubBits = 1/64
// (1.6 %) of a value actually recorded, at any magnitude from 1 ns to days. Values below
// 2^kSubBits are exact. Two histograms merge by adding their counts, so per-host histograms
// add up to a fleet histogram and runs on different seeds can be pooled.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace sim {

class Histogram {
 public:
  static constexpr int kSubBits = 6;
  static constexpr double kRelativeError = 1.0 / (1 << kSubBits);

  void record(std::int64_t v, std::uint64_t count = 1) {
    if (v < 0) v = 0;
    std::size_t i = index_of(static_cast<std::uint64_t>(v));
    if (i >= counts_.size()) counts_.resize(i + 1, 0);
    counts_[i] += count;
    total_ += count;
    sum_ += static_cast<double>(v) * static_cast<double>(count);
    if (v > max_) max_ = v;
    if (v < min_) min_ = v;
  }

  void merge(const Histogram& o) {
    if (o.counts_.size() > counts_.size()) counts_.resize(o.counts_.size(), 0);
    for (std::size_t i = 0; i < o.counts_.size(); ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
    sum_ += o.sum_;
    max_ = std::max(max_, o.max_);
    min_ = std::min(min_, o.min_);
  }

  void reset() { *this = Histogram{}; }

  std::uint64_t count() const { return total_; }
  double mean() const { return total_ ? sum_ / static_cast<double>(total_) : 0.0; }
  double sum() const { return sum_; }
  std::int64_t max() const { return total_ ? max_ : 0; }
  std::int64_t min() const { return total_ ? min_ : 0; }

  // The q-quantile (q in [0,1]): the representative value of the bucket holding the
  // ceil(q*count)-th smallest sample, clamped to [min, max]. 0 when empty.
  std::int64_t quantile(double q) const {
    if (total_ == 0) return 0;
    if (q <= 0) return min();
    if (q >= 1) return max();
    auto rank = static_cast<std::uint64_t>(q * static_cast<double>(total_));
    if (static_cast<double>(rank) < q * static_cast<double>(total_)) ++rank;
    if (rank == 0) rank = 1;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen >= rank) {
        std::int64_t v = static_cast<std::int64_t>(midpoint_of(i));
        return std::clamp(v, min_, max_);
      }
    }
    return max();
  }

  // Buckets for export: (lowest value, count) of each non-empty bucket.
  template <class F>
  void for_each_bucket(F&& f) const {
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      if (counts_[i]) f(lowest_of(i), counts_[i]);
    }
  }

  static std::size_t index_of(std::uint64_t v) {
    if (v < (1ULL << kSubBits)) return static_cast<std::size_t>(v);
    int msb = 63 - __builtin_clzll(v);
    int shift = msb - kSubBits;
    std::uint64_t sub = (v >> shift) & ((1ULL << kSubBits) - 1);
    return static_cast<std::size_t>((static_cast<std::uint64_t>(shift + 1) << kSubBits) + sub);
  }
  static std::uint64_t lowest_of(std::size_t i) {
    if (i < (1ULL << kSubBits)) return i;
    std::uint64_t shift = (i >> kSubBits) - 1;
    std::uint64_t sub = i & ((1ULL << kSubBits) - 1);
    return ((1ULL << kSubBits) | sub) << shift;
  }
  static std::uint64_t midpoint_of(std::size_t i) {
    if (i < (1ULL << kSubBits)) return i;
    std::uint64_t shift = (i >> kSubBits) - 1;
    return lowest_of(i) + ((1ULL << shift) >> 1);
  }

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0;
  double sum_ = 0;
  std::int64_t max_ = std::numeric_limits<std::int64_t>::min();
  std::int64_t min_ = std::numeric_limits<std::int64_t>::max();
};

}  // namespace sim
