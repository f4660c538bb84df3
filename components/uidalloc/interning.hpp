#pragma once
// The interning transaction (domain.md §10): look the string up (s/<str> -> UID), allocate if
// absent, store both directions (s/<str> -> UID and u/<UID> -> str). Retrying the whole body
// after commit_unknown_result is idempotent: if the earlier attempt did commit, the lookup finds
// its UID (the lookup takes a read conflict, so two concurrent internings of one string cannot
// both allocate).
#include <cstdint>
#include <string>

#include "components/uidalloc/allocator.hpp"
#include "components/uidalloc/key_codec.hpp"
#include "components/uidalloc/kv_transaction.hpp"

namespace uidalloc {

struct InternOutcome {
  std::uint64_t uid = 0;
  bool created = false;  // false: the string already had this UID
};

inline std::uint64_t decode_uid(const std::string& value) { return decode_be64(value); }

// One attempt; the caller commits and retries (FoundationDB's Transact loop). `str` must stay
// alive until the returned future completes.
template <kv::Backend B>
kv::FutureOf<B, InternOutcome> intern_in_transaction(typename B::Transaction& tr,
                                                     UidAllocator<B>& allocator,
                                                     const std::string& str) {
  const std::string forward_key = string_to_uid_key(str);
  kv::Value existing = co_await tr.get(forward_key);
  if (existing) {
    co_return InternOutcome{decode_uid(*existing), false};
  }
  std::uint64_t uid = co_await allocator.allocate(tr, str);
  tr.set(forward_key, encode_be64(uid));
  tr.set(uid_to_string_key(uid), str);
  co_return InternOutcome{uid, true};
}

}  // namespace uidalloc
