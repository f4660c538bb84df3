#pragma once
// UID = xxHash64(str) (real libxxhash, seed 0), keeping the low hash_bits bits. With the
// collision check, an existing different owner of that UID rejects the interning (UidCollision).
#include "components/uidalloc/allocator.hpp"

namespace uidalloc {

// The low `bits` bits of XXH64(str, seed 0).
std::uint64_t xxhash_uid(const std::string& str, int bits);

template <kv::Backend B>
class HashAllocator final : public UidAllocator<B> {
 public:
  using Transaction = typename B::Transaction;
  HashAllocator(int hash_bits, bool collision_check)
      : hash_bits_(hash_bits), collision_check_(collision_check) {}
  std::uint64_t hash(const std::string& str) const { return xxhash_uid(str, hash_bits_); }

  kv::FutureOf<B, std::uint64_t> allocate(Transaction& tr, const std::string& str) override {
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

 private:
  int hash_bits_;
  bool collision_check_;
};

}  // namespace uidalloc
