#pragma once
// Recycles coroutine frames. Every sim::Task and sim::Process frame comes from here (through
// PromiseBase's operator new/delete): freed frames wait on a per-size-class free list and the
// next frame of that class reuses one. Why: a model run allocates and frees a few frames per
// event, of a few hundred bytes to a few KiB, often in bursts larger than glibc's per-size
// cache (7 blocks), and glibc's general path was ~20 % of the April run.
//
// Free lists are per thread (the validation suite runs simulations on threads) and never shrink:
// the pool holds at most the peak number of live frames of each class. Which block a frame gets
// depends only on the order of frees and allocations, and nothing orders by address anyway.
// Under AddressSanitizer the pool steps aside so use-after-free of a frame is still caught.
#include <cstddef>
#include <new>

namespace sim::frame_pool {

inline constexpr std::size_t kGranule = 64;  // class k holds blocks of (k + 1) * 64 bytes
inline constexpr std::size_t kClasses = 64;  // up to 4 KiB; larger frames use ::operator new

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kEnabled = false;
#else
inline constexpr bool kEnabled = true;
#endif

struct FreeBlock {
  FreeBlock* next;
};
// Zero-initialised plain data, so the thread_local needs no guard or constructor.
inline thread_local FreeBlock* free_lists[kClasses];

inline std::size_t size_class(std::size_t n) { return (n - 1) / kGranule; }

// A class's first blocks are carved from chunks rather than taken one by one from
// ::operator new: a block of (k + 1) * 64 bytes then covers exactly k + 1 cache lines (malloc's
// 16-byte alignment made most frames straddle one more) and carries no allocator header, and
// frames made one after another (a spawn burst, a call chain) lie side by side. A chunk is one
// transparent huge page where the kernel allows it (frame_pool.cpp): PHOLD's million frames
// (131 MB) in 4 KiB pages were ~32,000 page faults and as many TLB entries. Chunks are never
// returned, as the free lists never shrink.
inline constexpr std::size_t kChunkBytes = std::size_t{2} << 20;
inline thread_local char* chunk_next;
inline thread_local char* chunk_end;

char* new_chunk();  // kChunkBytes, aligned to kChunkBytes

inline void* carve(std::size_t bytes) {
  if (static_cast<std::size_t>(chunk_end - chunk_next) < bytes) {
    chunk_next = new_chunk();
    chunk_end = chunk_next + kChunkBytes;
  }
  void* p = chunk_next;
  chunk_next += bytes;
  return p;
}

inline void* allocate(std::size_t n) {
  const std::size_t k = size_class(n);
  if (!kEnabled || k >= kClasses) return ::operator new(n);
  if (FreeBlock* b = free_lists[k]) {
    free_lists[k] = b->next;
    // The next frame of this class will read its block's link first; with ~20,000 goroutines
    // in flight (a full-size batch) that block has left the cache since it was freed, and the
    // read stalled here (98.8 % of this function's samples at scale 1). Fetch it now.
    __builtin_prefetch(b->next, 1);
    return b;
  }
  return carve((k + 1) * kGranule);
}

inline void deallocate(void* p, std::size_t n) noexcept {
  const std::size_t k = size_class(n);
  if (!kEnabled || k >= kClasses) {
    ::operator delete(p);
    return;
  }
  auto* b = static_cast<FreeBlock*>(p);
  b->next = free_lists[k];
  free_lists[k] = b;
}

}  // namespace sim::frame_pool
