#include "sim/rng.hpp"

#include <xxhash.h>

namespace sim {

std::uint64_t stream_seed(std::uint64_t root_seed, std::string_view name) {
  return XXH64(name.data(), name.size(), root_seed);
}

}  // namespace sim
