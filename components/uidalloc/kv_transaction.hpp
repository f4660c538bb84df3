#pragma once
// The one transaction interface the allocators are written against. models/fdb implements it
// for the simulator; a binding to a real FoundationDB client would implement the same methods
// with the client's futures. Semantics follow FoundationDB (domain.md §6.1, §6.4):
//  - get / get_range add a read conflict (the commit fails with not_committed if a key they
//    covered was written after the read version); the *_snapshot forms do not;
//  - writes are buffered and visible to this transaction's own later reads;
//  - every write adds a write conflict unless no_write_conflict_for_next_write() precedes it;
//  - atomic_add takes no read conflict (little-endian int64 addition at commit time).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/process.hpp"

namespace kv {

// The awaitable every read returns. The allocators only ever `co_await` it, so a real binding
// swaps this one alias for its own coroutine future.
template <class T>
using Future = sim::Task<T>;

using Value = std::optional<std::string>;

struct KeyValue {
  std::string key;
  std::string value;
};

struct RangeOptions {
  int limit = 0;  // 0 = no limit
  bool reverse = false;
  bool snapshot = false;
};

class Transaction {
 public:
  virtual ~Transaction() = default;

  virtual Future<Value> get(std::string key) = 0;
  virtual Future<Value> get_snapshot(std::string key) = 0;
  // Keys in [begin, end), ascending (or descending with reverse), at most limit of them.
  virtual Future<std::vector<KeyValue>> get_range(std::string begin, std::string end,
                                                  RangeOptions options) = 0;

  virtual void set(const std::string& key, const std::string& value) = 0;
  virtual void clear(const std::string& key) = 0;
  virtual void clear_range(const std::string& begin, const std::string& end) = 0;
  virtual void atomic_add(const std::string& key, std::int64_t delta) = 0;
  virtual void add_read_conflict_key(const std::string& key) = 0;
  virtual void add_write_conflict_key(const std::string& key) = 0;
  // FoundationDB's NEXT_WRITE_NO_WRITE_CONFLICT_RANGE option (used by the directory layer's
  // high-contention allocator, domain.md §6.5).
  virtual void no_write_conflict_for_next_write() = 0;
};

}  // namespace kv
