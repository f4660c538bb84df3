#include "components/uidalloc/hash_allocator.hpp"

#include <xxhash.h>

namespace uidalloc {

std::uint64_t xxhash_uid(const std::string& str, int bits) {
  std::uint64_t h = XXH64(str.data(), str.size(), 0);
  return bits == 64 ? h : h & ((std::uint64_t{1} << bits) - 1);
}

}  // namespace uidalloc
