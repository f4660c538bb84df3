#include "components/uidalloc/interning.hpp"

#include "components/uidalloc/key_codec.hpp"

namespace uidalloc {

std::uint64_t decode_uid(const std::string& value) { return decode_be64(value); }

kv::Future<InternOutcome> intern_in_transaction(kv::Transaction& tr, UidAllocator& allocator,
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
