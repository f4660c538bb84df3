#pragma once
// Shrinking a failing fault world (after QuickCheck/Hypothesis and Zeller's delta debugging):
// try smaller candidates — drop chunks of faults then single ones, shorten the run, shorten,
// delay and weaken each fault, lower the rates — keep a candidate whenever it still fails the
// same invariant, and repeat the passes until none makes progress (or the budget is spent):
// a fixpoint, where no single step from the result still fails.
#include <functional>

#include "fuzz/perturbation.hpp"

namespace skysim::fuzz {

// `still_fails(candidate)` runs the candidate and says whether it fails the same way.
// At most `max_runs` candidates are tried.
Perturbation shrink(const Perturbation& failing,
                    const std::function<bool(const Perturbation&)>& still_fails, int max_runs);

}  // namespace skysim::fuzz
