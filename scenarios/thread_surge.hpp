// thread_surge.hpp - a Go process's thread surges, as the summary's phases tell them: the
// post-mortem's "~150 threads -> ~1,500" is a count against what a healthy process holds. Go
// code alone needs one M per P and sysmon; Ms beyond that were made because goroutines sat in
// syscalls (runtime/proc.go: handoffp, startm). Watches the process's new Ms (no event of its
// own, so it changes no run) and writes one phase per life of the process whose threads passed
// 3x that baseline: when they did, and the most it reached in that life.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/model_registry.hpp"
#include "sim/time.hpp"

namespace skysim::scenarios {

class ThreadSurgeWatch {
 public:
  // GOMAXPROCS: the baseline is its Ms plus sysmon.
  explicit ThreadSurgeWatch(int gomaxprocs) : baseline_(gomaxprocs + 1) {}

  // After the process created an M; `threads` counts it.
  void thread_created(sim::Time now, std::int64_t threads) {
    peak_ = std::max(peak_, threads);
    if (open_) {
      surges_.back().peak = std::max(surges_.back().peak, threads);
    } else if (threads >= kFactor * baseline_) {
      surges_.push_back({now, threads});
      open_ = true;
    }
  }
  // The process died: its threads went with it, and the next life's surge is a new one.
  void process_died() { open_ = false; }
  // The most threads any life of the process has had, beyond those it started with.
  std::int64_t peak() const { return peak_; }

  void append_milestones(std::vector<Milestone>& out) const {
    for (const auto& s : surges_) {
      out.push_back({s.at, "OS threads past " + std::to_string(kFactor) + "x GOMAXPROCS + sysmon (" +
                               std::to_string(baseline_) + "); " + std::to_string(s.peak) +
                               " at most in this life of the process"});
    }
  }

 private:
  static constexpr std::int64_t kFactor = 3;
  struct Surge {
    sim::Time at;
    std::int64_t peak;
  };
  std::int64_t baseline_;
  std::int64_t peak_ = 0;
  bool open_ = false;
  std::vector<Surge> surges_;
};

}  // namespace skysim::scenarios
