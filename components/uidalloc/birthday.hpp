#pragma once
// Closed forms the interning experiments are compared with (docs/uid-interning.md).
#include <cstdint>

namespace uidalloc {

// P(at least one collision) among n keys hashed uniformly into 2^bits values:
// 1 - exp(-n(n-1) / 2^(bits+1)) (the birthday bound; domain.md §10.1).
double collision_probability(double n, int bits);
// Expected number of colliding pairs, n(n-1)/2 / 2^bits.
double expected_collision_pairs(double n, int bits);
// n at which collision_probability reaches p: sqrt(2 ln(1/(1-p)) 2^bits); 5.06e9 for p=0.5, 64.
double keys_for_collision_probability(double p, int bits);

// P(not_committed) of one sharded-sequence allocation that reads `tries` random sequences out of
// 2^prefix_bits while `others` other allocations commit in its (RV, CV] window, each writing one
// random sequence: 1 - (1 - tries/S)^others (domain.md §10.3 inference; uses the exact
// per-writer miss probability (1 - 1/S)^tries instead of 1 - tries/S when tries is large).
double sequence_conflict_probability(int prefix_bits, int tries, double others);

}  // namespace uidalloc
