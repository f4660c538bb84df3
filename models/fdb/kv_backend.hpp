#pragma once
// The simulator's adapter for the components/uidalloc allocators: the kv::Backend whose
// transaction is the simulated FoundationDB client's and whose future is the kernel's coroutine
// task, and the factory that hands an allocator a worker's random stream.
#include <memory>

#include "components/uidalloc/allocators.hpp"
#include "models/fdb/transaction.hpp"
#include "sim/process.hpp"
#include "sim/rng.hpp"

namespace fdb {

struct KvBackend {
  using Transaction = fdb::Transaction;
  template <class T>
  using Future = sim::Task<T>;
};
static_assert(kv::Backend<KvBackend>);
static_assert(uidalloc::Uint64Generator<sim::Rng>);

using UidAllocator = uidalloc::UidAllocator<KvBackend>;

// `rng` (the worker's stream) must outlive the allocator. Its operator() is its engine's draw, and
// the allocators use Boost's uniform_int_distribution as sim::Rng::uniform_int does, so they make
// exactly the draws they made before they left the simulator (same fingerprints).
inline std::unique_ptr<UidAllocator> make_uid_allocator(const uidalloc::AllocatorConfig& config,
                                                        sim::Rng& rng) {
  return uidalloc::make_allocator<KvBackend>(config, rng);
}

}  // namespace fdb
