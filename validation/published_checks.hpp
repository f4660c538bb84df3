#pragma once
// The published figures (seeds and domain.md) recomputed by the model code that claims them.
// Only models whose own tests pass are called here; the April replay's figures come from
// validation/april_checks.cpp, two of them as known departures (docs/validation.md).
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
