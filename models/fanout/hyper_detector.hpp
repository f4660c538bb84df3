#pragma once
// The hyper-follower detector of the detect_block / detect_limit policies
// (policies/hyper_detect.cpp): it sees only the timeline writes the fan-out is about to make --
// no follow counts, no hand-set flag -- and counts them per account in tumbling windows
// aligned on t = 0. An account whose timeline gets more than threshold_per_s x window writes
// inside one window is flagged at the write that crosses it (a counter a real fan-out instance
// could keep). From then on its writes are dropped (block) or pass a token bucket of
// limit_per_s (burst: one second's worth). Flags are never lifted within a run (assumption:
// a moderation decision, not a transient throttle).
#include <cstdint>
#include <vector>

#include "sim/time.hpp"

namespace fanout {

struct DetectorConfig {
  sim::Duration window = 10 * sim::kSecond;  // assumption
  // Writes/s into one timeline above which the account is flagged. Assumption: the write-up
  // calls a hyper-follower's timeline "written to hundreds of times a second"; 100/s is below
  // that and above what a 2,000-follow account gets at the flare load (15/s).
  double threshold_per_s = 100;
  bool block = true;        // false: rate-limit to limit_per_s
  double limit_per_s = 10;  // detect_limit: a flagged account's writes/s (assumption)

  void validate() const;
};

class HyperFollowerDetector {
 public:
  HyperFollowerDetector(std::uint32_t users, DetectorConfig cfg);

  // One timeline write to `user` about to be made at `now` (non-decreasing): observed, and
  // true iff it may be made.
  bool admit(std::uint32_t user, sim::Time now);
  // Each of page[from..] admitted in order; the refused ones leave the page (order kept).
  void admit_page(std::vector<std::uint32_t>& page, std::size_t from, sim::Time now);

  struct Flag {
    std::uint32_t user = 0;
    sim::Time at = 0;          // when the crossing write arrived
    sim::Time first_seen = 0;  // the account's first observed write
  };
  const std::vector<Flag>& flagged() const { return flags_; }  // in flag order
  bool is_flagged(std::uint32_t user) const { return state_[user].flag != kNone; }
  std::uint64_t dropped() const { return dropped_; }  // writes refused after a flag
  std::uint64_t observed() const { return observed_; }
  const DetectorConfig& config() const { return cfg_; }

 private:
  static constexpr std::uint32_t kNone = ~0u;
  struct PerUser {
    std::uint32_t window = kNone;  // index of the window `count` is for
    std::uint32_t count = 0;
    std::uint32_t flag = kNone;  // index into flags_ / buckets_
  };
  struct Bucket {
    double tokens = 0;
    sim::Time refilled = 0;
  };

  DetectorConfig cfg_;
  std::uint64_t per_window_limit_ = 0;
  std::vector<PerUser> state_;
  std::vector<sim::Time> first_seen_;
  std::vector<Flag> flags_;
  std::vector<Bucket> buckets_;  // per flag (detect_limit)
  std::uint64_t dropped_ = 0;
  std::uint64_t observed_ = 0;
};

}  // namespace fanout
