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
  // Scylla compacts per shard (each shard owns its SSTables, domain.md §7.1), so shards purge at
  // their own instants: shard s at phase_s + k * compaction_interval, phase_s drawn once per
  // shard. `aligned_compaction` puts every shard on one grid (phase 0), the earlier model kept
  // for comparison: it makes all hot shards cool at the same instant (docs/fanout.md).
  bool aligned_compaction = false;
  // The CPU a compaction spends per row written on its shard since the previous one
  // (assumption: the order of row_scan_cost; STCS rewrites a row a few times, each a merge
  // step of well under a microsecond). The job runs in the compaction scheduling group.
  sim::Duration compaction_row_cost = sim::kMicrosecond;

  void validate() const;
};

class TimelinePartition {
 public:
  // Applies one write at `now` and returns the trim cost it triggers (0 for most writes).
  // `phase` is the compaction phase of the shard holding this copy (periodic purges).
  sim::Duration write(const TimelineCostModel& m, sim::Time now, sim::Duration phase = 0) {
    return write_after(m, last_compaction(m, now, phase));
  }
  // The same with the instant of the last compaction that finished on the holding shard
  // (`purged`: rows shadowed before it are gone) -- the cluster runs compaction as work.
  sim::Duration write_after(const TimelineCostModel& m, sim::Time purged) {
    return write_rows_after(m, purged, 1);
  }
  // One write carrying `rows` rows (a coalesced batch into one partition): the rows are
  // appended together and the partition is trimmed at most once, so a batch of more than
  // trim_slack_rows rows scans the partition once where `rows` single writes would scan it
  // about rows / (trim_slack_rows + 1) times. The rows shadowed are the same either way.
  sim::Duration write_rows_after(const TimelineCostModel& m, sim::Time purged,
                                 std::uint32_t rows) {
    purge(purged);
    live_ += rows;
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
  sim::Duration read_cost(const TimelineCostModel& m, sim::Time now, std::uint32_t rows,
                          sim::Duration phase = 0) {
    return read_cost_after(m, rows, last_compaction(m, now, phase));
  }
  sim::Duration read_cost_after(const TimelineCostModel& m, std::uint32_t rows,
                                sim::Time purged) {
    purge(purged);
    return m.row_scan_cost * static_cast<sim::Duration>(rows + shadowed_);
  }

  void fill(std::uint32_t live) { live_ = live; }
  // The state a partition written at `writes_per_s` since its shard's last compaction has at
  // `now` (live rows at target plus the partial trim batch, shadowed rows of every trim since),
  // so a run starts in steady state instead of with every hot partition freshly compacted.
  void warm(const TimelineCostModel& m, sim::Time now, sim::Duration phase, double writes_per_s) {
    const sim::Time last = last_compaction(m, now, phase);
    const auto writes = static_cast<std::uint64_t>(writes_per_s * sim::to_seconds(now - last));
    const std::uint64_t batch = m.trim_slack_rows + 1;  // a trim removes this many rows
    live_ = m.target_rows + static_cast<std::uint32_t>(writes % batch);
    shadowed_ = static_cast<std::uint32_t>(writes / batch * batch);
    compacted_at_ = last;
  }
  std::uint32_t live_rows() const { return live_; }
  std::uint32_t shadowed_rows() const { return shadowed_; }

 
  // Compaction instants of a shard are phase + k * interval (k any integer); the latest <= now.
  static sim::Time last_compaction(const TimelineCostModel& m, sim::Time now,
                                   sim::Duration phase) {
    const sim::Duration i = m.compaction_interval;
    const sim::Duration since = ((now - phase) % i + i) % i;
    return now - since;
  }

 private:
  void purge(sim::Time epoch) {
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
