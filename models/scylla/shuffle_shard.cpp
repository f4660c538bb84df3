#include "models/scylla/shuffle_shard.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/scylla/murmur3.hpp"

namespace scylla {

std::vector<std::uint32_t> shuffle_shard_set(std::uint64_t tenant, std::uint32_t k,
                                             std::uint32_t n) {
  if (k == 0 || k > n) {
    throw std::invalid_argument("scylla: shuffle shard size k=" + std::to_string(k) +
                                " must be in 1..n=" + std::to_string(n));
  }
  std::vector<std::uint32_t> out;
  out.reserve(k);
  unsigned char buf[12];
  for (std::uint32_t i = 0; out.size() < k; ++i) {
    for (int b = 0; b < 8; ++b) {
      buf[b] = static_cast<unsigned char>(tenant >> (8 * b));
    }
    for (int b = 0; b < 4; ++b) {
      buf[8 + b] = static_cast<unsigned char>(i >> (8 * b));
    }
    auto h = murmur3_x64_128(buf, sizeof buf, 0).first;
    auto w = static_cast<std::uint32_t>(h % n);
    if (std::find(out.begin(), out.end(), w) == out.end()) {
      out.push_back(w);
    }
  }
  return out;
}

double choose(std::uint32_t n, std::uint32_t k) {
  if (k > n) {
    return 0.0;
  }
  double c = 1.0;
  for (std::uint32_t i = 1; i <= k; ++i) {
    c = c * static_cast<double>(n - k + i) / static_cast<double>(i);
  }
  return c;
}

}  // namespace scylla
