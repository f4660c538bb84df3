#pragma once
// An allocator for node containers that insert and erase on every slice of work (HostCpu's
// running set and EEVDF line: one std::set node per job start, every few µs of simulated
// time). Freed nodes wait on a free list per node size and are handed out again, last freed
// first; memory is never given back (bounded by the most nodes alive at once). Where a node
// lives is never observable: the sets order by their comparators, not by address.
#include <cstddef>
#include <memory>
#include <new>

namespace goruntime {

namespace node_pool_detail {
struct FreeNode {
  FreeNode* next;
};
// One list per node size; thread_local so that runs in threads of one process stay apart.
template <std::size_t Size, std::size_t Align>
inline thread_local FreeNode* free_list = nullptr;
}  // namespace node_pool_detail

template <class T>
struct NodePoolAllocator {
  using value_type = T;
  NodePoolAllocator() noexcept = default;
  template <class U>
  NodePoolAllocator(const NodePoolAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n != 1 || sizeof(T) < sizeof(node_pool_detail::FreeNode)) {
      return std::allocator<T>().allocate(n);
    }
    node_pool_detail::FreeNode*& head = list();
    if (head == nullptr) return std::allocator<T>().allocate(1);
    node_pool_detail::FreeNode* node = head;
    head = node->next;
    return reinterpret_cast<T*>(node);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n != 1 || sizeof(T) < sizeof(node_pool_detail::FreeNode)) {
      std::allocator<T>().deallocate(p, n);
      return;
    }
    auto* node = reinterpret_cast<node_pool_detail::FreeNode*>(p);
    node->next = list();
    list() = node;
  }
  friend bool operator==(const NodePoolAllocator&, const NodePoolAllocator&) { return true; }

 private:
  static node_pool_detail::FreeNode*& list() {
    return node_pool_detail::free_list<sizeof(T), alignof(T)>;
  }
};

}  // namespace goruntime
