#pragma once
// Shrinking a failing fault world (after QuickCheck/Hypothesis): try smaller candidates —
// drop each fault, shorten the run, shorten each fault, lower the rates — and keep a
// candidate whenever it still fails the same invariant. Greedy, so the result is a local
// minimum: no single step from it still fails.
#include <functional>

#include "fuzz/perturbation.hpp"

namespace skysim::fuzz {

// `still_fails(candidate)` runs the candidate and says whether it fails the same way.
// At most `max_runs` candidates are tried.
Perturbation shrink(const Perturbation& failing,
                    const std::function<bool(const Perturbation&)>& still_fails, int max_runs);

}  // namespace skysim::fuzz
