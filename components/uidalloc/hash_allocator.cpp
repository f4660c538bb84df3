#include <xxhash.h>

#include "components/uidalloc/allocators.hpp"

namespace uidalloc {

std::uint64_t HashAllocator::hash(const std::string& str) const {
  std::uint64_t h = XXH64(str.data(), str.size(), 0);
  return hash_bits_ == 64 ? h : h & ((std::uint64_t{1} << hash_bits_) - 1);
}

kv::Future<std::uint64_t> HashAllocator::allocate(kv::Transaction& tr, const std::string& str) {
  std::uint64_t uid = hash(str);
  if (collision_check_) {
    // Serializable read: a concurrent interning of a colliding string conflicts with this one.
    kv::Value owner = co_await tr.get(uid_to_string_key(uid));
    if (owner && *owner != str) {
      throw UidCollision("xxhash UID " + std::to_string(uid) + " of '" + str +
                         "' already belongs to '" + *owner + "'");
    }
  }
  co_return uid;
}

}  // namespace uidalloc
