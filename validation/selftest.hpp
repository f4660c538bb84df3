#pragma once
// `skysim selftest`: every validation case and published-figure check, one table.
#include <string>
#include <vector>

#include "validation/check.hpp"

namespace skysim::validation {

struct SelftestOptions {
  bool quick = false;        // every run a quarter as long (wider CIs, same claims)
  int jobs = 1;              // replications in parallel (results do not depend on it)
  int seeds = 10;            // independent replications per case
  std::string scenario_dir;  // where scenarios/validation-*.yaml are; "" = the source tree's
};

struct SelftestReport {
  std::vector<CheckRow> rows;
  double verdict_confidence = 0;  // per-line confidence of the family-wise verdict interval
  int statistical_lines = 0;
  bool all_hold() const {
    for (const auto& r : rows) {
      if (!r.holds()) return false;
    }
    return true;
  }
};

// Throws std::invalid_argument on bad options, the loader's ScenarioError on a bad file.
SelftestReport run_selftest(const SelftestOptions& options);

// The queueing part alone (also used by the tests): replicated checks for the kernel's
// Semaphore stations and the queue-server scenarios, not yet judged.
struct QueueingChecks {
  std::vector<ReplicatedCheck> checks;
  std::vector<std::size_t> primary;  // one check per case: the rows of the 1/sqrt(T) line
  long fifo_violations = 0;          // service starts out of arrival order, all kernel runs
  long kernel_runs = 0;
  bool scenario_invariants_hold = true;
};
QueueingChecks run_queueing_checks(const SelftestOptions& options);

}  // namespace skysim::validation
