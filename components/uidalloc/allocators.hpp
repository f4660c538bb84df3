#pragma once
// The concrete allocators behind make_allocator (allocator.hpp).
#include <cstdint>
#include <string>

#include "components/uidalloc/allocator.hpp"

namespace uidalloc {

// One counter key, read-increment-write (the seed's first Go snippet; domain.md §10.1). Every
// allocation reads and writes the same key, so concurrent allocations conflict.
// With snapshot_read = true it is the PLANTED BUG the invariant checker must catch: the read
// takes no conflict, so two concurrent transactions can both hand out last_uid + 1.
class SingleCounterAllocator final : public UidAllocator {
 public:
  explicit SingleCounterAllocator(bool snapshot_read) : snapshot_read_(snapshot_read) {}
  kv::Future<std::uint64_t> allocate(kv::Transaction& tr, const std::string& str) override;

 private:
  bool snapshot_read_;
};

// "Billions of sequences" exactly as published (domain.md §10.2-10.3): up to `tries` random
// sequence ids, each read with a conflict-taking get; with break_on_success = false (as
// published) all tries run and the last one wins, so an exhausted last pick pairs the previous
// counter with the wrong sequence id (kept on purpose; latent bug of the original).
class ShardedSequenceAllocator final : public UidAllocator {
 public:
  ShardedSequenceAllocator(const AllocatorConfig& config, sim::Rng& rng);
  kv::Future<std::uint64_t> allocate(kv::Transaction& tr, const std::string& str) override;

 private:
  int prefix_bits_;
  int shift_;
  int tries_;
  bool break_on_success_;
  std::uint64_t counter_max_;  // a sequence at this value is exhausted
  sim::Rng* rng_;
};

// FoundationDB directory layer's HighContentionAllocator (domain.md §6.5): windows of 64 /
// 1024 / 8192 candidates, snapshot reads of the window counters, one conflict-taking read of
// the chosen candidate.
class HighContentionAllocator final : public UidAllocator {
 public:
  explicit HighContentionAllocator(sim::Rng& rng) : rng_(&rng) {}
  kv::Future<std::uint64_t> allocate(kv::Transaction& tr, const std::string& str) override;
  static std::int64_t window_size(std::int64_t start);

 private:
  sim::Rng* rng_;
};

// UID = xxHash64(str) (real libxxhash, seed 0), keeping the low hash_bits bits. With the
// collision check, an existing different owner of that UID rejects the interning (UidCollision).
class HashAllocator final : public UidAllocator {
 public:
  HashAllocator(int hash_bits, bool collision_check)
      : hash_bits_(hash_bits), collision_check_(collision_check) {}
  kv::Future<std::uint64_t> allocate(kv::Transaction& tr, const std::string& str) override;
  std::uint64_t hash(const std::string& str) const;

 private:
  int hash_bits_;
  bool collision_check_;
};

}  // namespace uidalloc
