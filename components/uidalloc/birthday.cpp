#include "components/uidalloc/birthday.hpp"

#include <cmath>
#include <stdexcept>

namespace uidalloc {

double collision_probability(double n, int bits) {
  if (n < 0 || bits < 1 || bits > 64) {
    throw std::invalid_argument("collision_probability: need n >= 0 and bits in 1..64");
  }
  return -std::expm1(-n * (n - 1) / std::ldexp(1.0, bits + 1));
}

double expected_collision_pairs(double n, int bits) {
  return n * (n - 1) / 2 / std::ldexp(1.0, bits);
}

double keys_for_collision_probability(double p, int bits) {
  if (p <= 0 || p >= 1) {
    throw std::invalid_argument("keys_for_collision_probability: p must be in (0, 1)");
  }
  return std::sqrt(2 * std::log(1 / (1 - p)) * std::ldexp(1.0, bits));
}

double sequence_conflict_probability(int prefix_bits, int tries, double others) {
  if (prefix_bits < 1 || prefix_bits > 64 || tries < 1 || others < 0) {
    throw std::invalid_argument("sequence_conflict_probability: bad arguments");
  }
  double sequences = std::ldexp(1.0, prefix_bits);
  // A writer misses all of our `tries` reads with probability (1 - 1/S)^tries.
  double miss_one = std::pow(1 - 1 / sequences, tries);
  return 1 - std::pow(miss_one, others);
}

}  // namespace uidalloc
