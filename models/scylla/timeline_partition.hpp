#pragma once
// The cost of one write to a user's Timeline partition on one replica (domain.md §8.1: timelines
// are "trimmed on write to stay near a target length"). A write appends a row; once the
// partition holds more than target + slack rows, the trim scans the partition (live rows plus
// rows already deleted but still shadowed until compaction) and deletes back down to target.
// The shadowed rows make the cost super-linear in the write rate: a partition written
// hundreds of times a second scans ever more dead rows, and the whole cost lands on the one
// shard that owns it (domain.md §7.6), slowing every partition co-located there.
#include <cstdint>

#include "sim/time.hpp"

namespace scylla {

struct TimelineCostModel {
  sim::Duration write_service_mean = 30 * sim::kMicrosecond;  // assumption, see docs
  std::uint32_t target_rows = 1000;   // assumption: Bluesky's target is not published (§8.1)
  std::uint32_t trim_slack_rows = 100;  // assumption: trim in batches of 100 rows
  // assumption: ~1 us per scanned row, the order implied by Cassandra/Scylla's tombstone
  // warn/fail thresholds (1,000 / 100,000 rows per read are "slow" / "too slow").
  sim::Duration row_scan_cost = sim::kMicrosecond;
  // assumption: how long deleted rows stay in the read path before compaction drops them.
  sim::Duration compaction_interval = sim::kMinute;

  void validate() const;
};

class TimelinePartition {
 public:
  // Applies one write at `now` and returns the trim cost it triggers (0 for most writes).
  sim::Duration write(const TimelineCostModel& m, sim::Time now) {
    compact_if_due(m, now);
    ++live_;
    if (live_ <= m.target_rows + m.trim_slack_rows) {
      return 0;
    }
    const sim::Duration cost =
        m.row_scan_cost * static_cast<sim::Duration>(live_ + shadowed_);
    shadowed_ += live_ - m.target_rows;
    live_ = m.target_rows;
    return cost;
  }
  // A read of `rows` rows scans past the shadowed ones too.
  sim::Duration read_cost(const TimelineCostModel& m, sim::Time now, std::uint32_t rows) {
    compact_if_due(m, now);
    return m.row_scan_cost * static_cast<sim::Duration>(rows + shadowed_);
  }

  void fill(std::uint32_t live) { live_ = live; }
  std::uint32_t live_rows() const { return live_; }
  std::uint32_t shadowed_rows() const { return shadowed_; }

 private:
  void compact_if_due(const TimelineCostModel& m, sim::Time now) {
    // Compaction runs on a fixed grid (every partition at the same instants): its own CPU cost
    // is not modelled, only that it purges the shadowed rows.
    const sim::Time epoch = now - now % m.compaction_interval;
    if (epoch > compacted_at_) {
      shadowed_ = 0;
      compacted_at_ = epoch;
    }
  }

  std::uint32_t live_ = 0;
  std::uint32_t shadowed_ = 0;
  sim::Time compacted_at_ = 0;
};

}  // namespace scylla
