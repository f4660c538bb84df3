#pragma once
// The concrete allocators and the factory that picks one from an AllocatorConfig.
#include <memory>
#include <stdexcept>

#include "components/uidalloc/allocator.hpp"
#include "components/uidalloc/hash_allocator.hpp"
#include "components/uidalloc/high_contention_allocator.hpp"
#include "components/uidalloc/sharded_sequence_allocator.hpp"
#include "components/uidalloc/single_counter_allocator.hpp"

namespace uidalloc {

// One allocator per worker: `rng` is that worker's stream (Go's rand.Uint32 in the original)
// and must outlive the allocator.
template <kv::Backend B, Uint64Generator G>
std::unique_ptr<UidAllocator<B>> make_allocator(const AllocatorConfig& config, G& rng) {
  config.validate();
  switch (config.kind) {
    case AllocatorKind::single_counter:
      return std::make_unique<SingleCounterAllocator<B>>(false);
    case AllocatorKind::snapshot_counter_bug:
      return std::make_unique<SingleCounterAllocator<B>>(true);
    case AllocatorKind::sharded_sequences:
      return std::make_unique<ShardedSequenceAllocator<B, G>>(config, rng);
    case AllocatorKind::high_contention:
      return std::make_unique<HighContentionAllocator<B, G>>(rng);
    case AllocatorKind::xxhash:
      return std::make_unique<HashAllocator<B>>(config.hash_bits, config.collision_check);
  }
  throw std::invalid_argument("make_allocator: invalid AllocatorKind");
}

}  // namespace uidalloc
