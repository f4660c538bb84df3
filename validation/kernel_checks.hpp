#pragma once
// What a reviewer who distrusts simulators asks first: are equal-time events run in the order
// they were scheduled, are the random streams what they claim to be, and does a seed give the
// same run twice? Each check returns one line of the selftest table.
#include <cstdint>
#include <string>

#include "validation/check.hpp"

namespace skysim::validation {

// 2000 processes and 2000 callbacks all due at one instant must run in insertion order.
DirectCheck check_equal_time_order();

// Pearson chi-square of Rng::uniform_int(0, 9) over `draws` draws; passes when p > alpha.
DirectCheck check_uniform_int(std::uint64_t seed, long draws, double alpha);

// One-sample Kolmogorov–Smirnov of Rng::exponential(mean) against Exp(mean); p > alpha.
DirectCheck check_exponential(std::uint64_t seed, long draws, double alpha);

// The scenario run twice with one seed gives one fingerprint; another seed gives another.
DirectCheck check_determinism(const std::string& scenario_file);

}  // namespace skysim::validation
