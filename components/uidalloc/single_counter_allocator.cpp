#include "components/uidalloc/allocators.hpp"
#include "components/uidalloc/key_codec.hpp"

namespace uidalloc {

kv::Future<std::uint64_t> SingleCounterAllocator::allocate(kv::Transaction& tr,
                                                           const std::string&) {
  const std::string key(kSingleCounterKey);
  kv::Value val;
  if (snapshot_read_) {
    val = co_await tr.get_snapshot(key);  // the planted bug: no read conflict
  } else {
    val = co_await tr.get(key);
  }
  std::uint64_t uid = 1;  // start from 1
  if (val) {
    uid = parse_decimal(*val) + 1;
  }
  tr.set(key, std::to_string(uid));
  co_return uid;
}

}  // namespace uidalloc
