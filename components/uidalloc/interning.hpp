#pragma once
// The interning transaction (domain.md §10): look the string up (s/<str> -> UID), allocate if
// absent, store both directions (s/<str> -> UID and u/<UID> -> str). Retrying the whole body
// after commit_unknown_result is idempotent: if the earlier attempt did commit, the lookup finds
// its UID (the lookup takes a read conflict, so two concurrent internings of one string cannot
// both allocate).
#include <cstdint>
#include <string>

#include "components/uidalloc/allocator.hpp"
#include "components/uidalloc/kv_transaction.hpp"

namespace uidalloc {

struct InternOutcome {
  std::uint64_t uid = 0;
  bool created = false;  // false: the string already had this UID
};

// One attempt; the caller commits and retries (FoundationDB's Transact loop). `str` must stay
// alive until the returned future completes.
kv::Future<InternOutcome> intern_in_transaction(kv::Transaction& tr, UidAllocator& allocator,
                                                const std::string& str);

std::uint64_t decode_uid(const std::string& value);

}  // namespace uidalloc
