#pragma once
// One counter key, read-increment-write (the seed's first Go snippet; domain.md §10.1). Every
// allocation reads and writes the same key, so concurrent allocations conflict.
// With snapshot_read = true it is the PLANTED BUG the invariant checker must catch: the read
// takes no conflict, so two concurrent transactions can both hand out last_uid + 1.
#include "components/uidalloc/allocator.hpp"
#include "components/uidalloc/key_codec.hpp"

namespace uidalloc {

template <kv::Backend B>
class SingleCounterAllocator final : public UidAllocator<B> {
 public:
  using Transaction = typename B::Transaction;
  explicit SingleCounterAllocator(bool snapshot_read) : snapshot_read_(snapshot_read) {}

  kv::FutureOf<B, std::uint64_t> allocate(Transaction& tr, const std::string&) override {
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

 private:
  bool snapshot_read_;
};

}  // namespace uidalloc
