#pragma once
// FoundationDB's directory-layer HighContentionAllocator, step by step as domain.md §6.5 has it
// (bindings/go/src/fdb/directory/allocator.go): windows of 64 / 1024 / 8192 candidates,
// snapshot reads of the window counters, one conflict-taking read of the chosen candidate.
// Keys: counters = hca/c/<be64 start>, value a little-endian int64 maintained by atomic ADD;
// recent = hca/r/<be64 candidate>.
#include <boost/random/uniform_int_distribution.hpp>

#include "components/uidalloc/allocator.hpp"
#include "components/uidalloc/key_codec.hpp"

namespace uidalloc {

namespace hca {

inline std::string counter_key(std::int64_t start) {
  return std::string(kHcaCounters) + encode_be64(static_cast<std::uint64_t>(start));
}
inline std::string recent_key(std::int64_t candidate) {
  return std::string(kHcaRecent) + encode_be64(static_cast<std::uint64_t>(candidate));
}

// Larger windows as the allocated prefixes grow, so the count key is updated less often.
inline std::int64_t window_size(std::int64_t start) {
  if (start < 255) {
    return 64;
  }
  if (start < 65535) {
    return 1024;
  }
  return 8192;
}

// Start of the newest window: snapshot reverse range read of the counters, limit 1.
template <kv::Backend B>
kv::FutureOf<B, std::int64_t> latest_window_start(typename B::Transaction& tr) {
  auto kvs = co_await tr.get_range(std::string(kHcaCounters), prefix_end(kHcaCounters),
                                   kv::RangeOptions{1, true, true});
  if (kvs.empty()) {
    co_return 0;
  }
  co_return static_cast<std::int64_t>(decode_be64(kvs[0].key.substr(kHcaCounters.size())));
}

}  // namespace hca

template <kv::Backend B, Uint64Generator G>
class HighContentionAllocator final : public UidAllocator<B> {
 public:
  using Transaction = typename B::Transaction;
  explicit HighContentionAllocator(G& rng) : rng_(&rng) {}

  kv::FutureOf<B, std::uint64_t> allocate(Transaction& tr, const std::string&) override {
    for (;;) {
      std::int64_t start = co_await hca::latest_window_start<B>(tr);
      std::int64_t window = 0;
      bool window_advanced = false;
      for (;;) {
        if (window_advanced) {
          tr.clear_range(std::string(kHcaCounters), hca::counter_key(start));
          tr.no_write_conflict_for_next_write();
          tr.clear_range(std::string(kHcaRecent), hca::recent_key(start));
        }
        // Count this allocation against the window; the snapshot read sees our own ADD.
        tr.atomic_add(hca::counter_key(start), 1);
        kv::Value count_bytes = co_await tr.get_snapshot(hca::counter_key(start));
        std::int64_t count = count_bytes ? decode_le64(*count_bytes) : 0;
        window = hca::window_size(start);
        if (count * 2 < window) {
          break;
        }
        start += window;
        window_advanced = true;
      }
      // The window is less than half full as of our snapshot: ~2 expected tries.
      for (;;) {
        std::int64_t candidate =
            start + boost::random::uniform_int_distribution<std::int64_t>(0, window - 1)(*rng_);
        std::string key = hca::recent_key(candidate);
        std::int64_t current_start = co_await hca::latest_window_start<B>(tr);
        kv::Value candidate_value = co_await tr.get(key);
        tr.no_write_conflict_for_next_write();
        tr.set(key, "");
        if (current_start > start) {
          break;  // another allocator advanced the window: start over
        }
        if (!candidate_value) {
          tr.add_write_conflict_key(key);
          co_return static_cast<std::uint64_t>(candidate);
        }
      }
    }
  }

 private:
  G* rng_;
};

}  // namespace uidalloc
