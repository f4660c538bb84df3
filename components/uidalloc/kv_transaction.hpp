#pragma once
// The transaction the allocators are written against, as a C++20 concept over a *backend*: a
// type naming its transaction and its future template.
//
//   struct MyBackend {
//     using Transaction = MyTransaction;             // get / set / ... as below
//     template <class T> using Future = MyTask<T>;   // what get() returns; the allocators
//   };                                               // co_await it and return it
//
// The simulator's backend is models/fdb/kv_backend.hpp (sim::Task, the simulated cluster);
// backends/etcd is a real one (kv::SyncTask, etcd's v3 API over HTTP). The allocators are
// templates over the backend, so the one source compiles into both (docs/components.md says why
// a template and not a type-erased future).
//
// Semantics follow FoundationDB (domain.md §6.1, §6.4):
//  - get / get_range add a read conflict (the commit fails with not_committed if a key they
//    covered was written after the read version); the *_snapshot forms do not;
//  - writes are buffered and visible to this transaction's own later reads;
//  - every write adds a write conflict unless no_write_conflict_for_next_write() precedes it;
//  - atomic_add takes no read conflict (little-endian int64 addition at commit time).
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kv {

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

template <class B, class T>
using FutureOf = typename B::template Future<T>;

template <class B>
concept Backend = requires(typename B::Transaction& tr, std::string key, std::int64_t delta,
                           RangeOptions options) {
  { tr.get(key) } -> std::same_as<FutureOf<B, Value>>;
  { tr.get_snapshot(key) } -> std::same_as<FutureOf<B, Value>>;
  // Keys in [begin, end), ascending (or descending with reverse), at most limit of them.
  { tr.get_range(key, key, options) } -> std::same_as<FutureOf<B, std::vector<KeyValue>>>;
  tr.set(key, key);
  tr.clear(key);
  tr.clear_range(key, key);
  tr.atomic_add(key, delta);
  tr.add_read_conflict_key(key);
  tr.add_write_conflict_key(key);
  // FoundationDB's NEXT_WRITE_NO_WRITE_CONFLICT_RANGE option (used by the directory layer's
  // high-contention allocator, domain.md §6.5).
  tr.no_write_conflict_for_next_write();
};

}  // namespace kv
