#pragma once
// The timeline fan-out figures of the lossy-timelines write-up (domain.md §8.2-§8.3), each
// recomputed by models/fanout's public experiment API (run_experiment) over seeds.
#include "validation/check.hpp"
#include "validation/selftest.hpp"

namespace skysim::validation {

FigureChecks fanout_checks(const SelftestOptions& options);

}  // namespace skysim::validation
