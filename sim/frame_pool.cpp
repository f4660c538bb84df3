#include "sim/frame_pool.hpp"

#include <sys/mman.h>

namespace sim::frame_pool {

char* new_chunk() {
  // Aligned to its size, so the whole chunk can be one huge page. With THP in `madvise` mode
  // (Debian's default) the kernel backs it with one only when asked; if it cannot, or THP is
  // off, the advice is ignored and the chunk is ordinary pages: nothing depends on it.
  auto* p = static_cast<char*>(::operator new (kChunkBytes, std::align_val_t{kChunkBytes}));
  static_cast<void>(::madvise(p, kChunkBytes, MADV_HUGEPAGE));
  return p;
}

}  // namespace sim::frame_pool
