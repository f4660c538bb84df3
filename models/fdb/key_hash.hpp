#pragma once
// Hash for the point-lookup indexes beside the ordered maps. xxHash (XXH3), not std::hash: the
// value is the same on every platform, so even a future order-dependent use stays portable.
// The indexes are only ever probed by key, never iterated.
#include <xxhash.h>

#include <cstddef>
#include <string_view>

namespace fdb {

struct KeyHash {
  // Deliberately not noexcept: libstdc++ then caches each node's hash, so a probe does not
  // rehash every key along its bucket chain.
  std::size_t operator()(std::string_view s) const {
    return static_cast<std::size_t>(XXH3_64bits(s.data(), s.size()));
  }
};

}  // namespace fdb
