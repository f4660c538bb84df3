#include <catch2/catch.hpp>

#include "sim/frame_pool.hpp"

namespace fp = sim::frame_pool;

TEST_CASE("the frame pool reuses a freed block of the same size class") {
  void* a = fp::allocate(100);  // class 1 (65..128 bytes)
  fp::deallocate(a, 100);
  void* b = fp::allocate(128);  // same class
  if (fp::kEnabled) CHECK(b == a);
  void* c = fp::allocate(129);  // next class: a different block
  CHECK(c != b);
  fp::deallocate(b, 128);
  fp::deallocate(c, 129);
  void* big = fp::allocate(fp::kGranule * fp::kClasses + 1);  // beyond the pool
  fp::deallocate(big, fp::kGranule * fp::kClasses + 1);
}
