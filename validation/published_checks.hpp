#pragma once
// The published figures (seeds and domain.md) recomputed by the model code that claims them.
// Only models whose own tests pass are called here; docs/validation.md lists the figures
// not yet covered (the April replay's thread growth and crash cadence: see published_checks.cpp).
#include <vector>

#include "validation/check.hpp"
#include "validation/selftest.hpp"

namespace skysim::validation {

struct PublishedChecks {
  std::vector<ReplicatedCheck> replicated;  // simulated over seeds: judged like the queues
  std::vector<BandCheck> band;              // a published range or bound, over seeds
  std::vector<DirectCheck> direct;          // exact arithmetic of the write-ups
};

PublishedChecks published_checks(const SelftestOptions& options);

}  // namespace skysim::validation
