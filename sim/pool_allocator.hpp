#pragma once
// A standard allocator over the frame pool (sim/frame_pool.hpp): for small objects a model makes
// and drops once per event or so, held by shared_ptr (std::allocate_shared puts the object and
// its control block in one pool block). A composed fan-out makes two per timeline write (the
// goroutine's request state and the call's reply), four million a run; from glibc they were
// ~5 % of its instructions (docs/benchmarks.md, "The fan-out as a composition").
#include <cstddef>
#include <memory>
#include <utility>

#include "sim/frame_pool.hpp"

namespace sim {

template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(frame_pool::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { frame_pool::deallocate(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const noexcept {
    return true;
  }
};

// std::make_shared, its block from the pool.
template <class T, class... A>
std::shared_ptr<T> make_pooled(A&&... args) {
  return std::allocate_shared<T>(PoolAllocator<T>{}, std::forward<A>(args)...);
}

}  // namespace sim
