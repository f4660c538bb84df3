#pragma once
// UID allocators for string interning (domain.md §10), each one FoundationDB transaction's worth
// of reads and writes against a kv::Backend's transaction (kv_transaction.hpp). Pick one with
// AllocatorConfig + make_allocator (allocators.hpp).
#include <concepts>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "components/uidalloc/allocator_config.hpp"
#include "components/uidalloc/kv_transaction.hpp"

namespace uidalloc {

// The random source: any standard UniformRandomBitGenerator with a full 64-bit range
// (std::mt19937_64, Boost's, the simulator's per-actor engine). The sharded-sequence allocator
// takes its top bits as Go's rand.Uint32 narrowed; the HCA draws with Boost's
// uniform_int_distribution, whose algorithm, unlike std::'s, is the same on every vendor.
template <class G>
concept Uint64Generator = std::uniform_random_bit_generator<G> && G::min()
== 0 && G::max() == std::numeric_limits<std::uint64_t>::max();

template <kv::Backend B>
class UidAllocator {
 public:
  using Transaction = typename B::Transaction;
  virtual ~UidAllocator() = default;
  // Called inside the interning transaction for a string that has no UID yet. `str` must stay
  // alive until the returned future completes.
  virtual kv::FutureOf<B, std::uint64_t> allocate(Transaction& tr, const std::string& str) = 0;
};

}  // namespace uidalloc
