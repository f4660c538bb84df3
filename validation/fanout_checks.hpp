#pragma once
// The timeline fan-out figures of the lossy-timelines write-up (domain.md §8.2-§8.3), each
// recomputed by models/fanout's public experiment API (run_experiment) over seeds.
#include <vector>

#include "validation/check.hpp"
#include "validation/selftest.hpp"

namespace skysim::validation {

struct FanoutChecks {
  std::vector<BandCheck> band;
  std::vector<DirectCheck> direct;
};

FanoutChecks fanout_checks(const SelftestOptions& options);

}  // namespace skysim::validation
