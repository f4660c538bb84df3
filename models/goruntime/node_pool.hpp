#pragma once
// An allocator for node containers that insert and erase on every slice of work (HostCpu's
// running set and EEVDF line: one std::set node per job start, every few µs of simulated
// time). Nodes come from the kernel's recycling pool (sim/frame_pool.hpp: per-thread free lists
// per size class, stepping aside under AddressSanitizer), so a slice costs no malloc. Where a
// node lives is never observable: the sets order by their comparators, not by address.
#include <cstddef>
#include <memory>

#include "sim/frame_pool.hpp"

namespace goruntime {

template <class T>
struct NodePoolAllocator {
  using value_type = T;
  NodePoolAllocator() noexcept = default;
  template <class U>
  NodePoolAllocator(const NodePoolAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n != 1) return std::allocator<T>().allocate(n);
    return static_cast<T*>(sim::frame_pool::allocate(sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n != 1) {
      std::allocator<T>().deallocate(p, n);
      return;
    }
    sim::frame_pool::deallocate(p, sizeof(T));
  }
  friend bool operator==(const NodePoolAllocator&, const NodePoolAllocator&) { return true; }
};

}  // namespace goruntime
