// DeliveryBook: per-user offered / delivered and fanout.delivered-le-offered, kept incremental.
#include <catch2/catch.hpp>

#include "models/fanout/delivery_book.hpp"

TEST_CASE("a delivery beyond what was addressed is reported at once, and clears when offered") {
  fanout::DeliveryBook b(4);
  b.offer(2);
  b.deliver(2);
  CHECK(b.error().empty());  // 1 of 1
  b.deliver(2);              // the step that breaks it: 2 delivered, 1 addressed
  CHECK(b.error() == "user 2 got more writes than addressed");
  b.deliver(1);  // user 1 too, lower id: named first, as the walk over users did
  CHECK(b.error() == "user 1 got more writes than addressed");
  b.offer(1);
  CHECK(b.error() == "user 2 got more writes than addressed");
  b.offer(2);  // caught up
  CHECK(b.error().empty());
  CHECK(b.offered(2) == 2);
  CHECK(b.delivered(2) == 2);
}

TEST_CASE("the kept count of users over the line matches a walk after every step") {
  constexpr std::uint32_t kUsers = 16;
  fanout::DeliveryBook b(kUsers);
  std::uint64_t x = 88172645463325252ull;
  for (int step = 0; step < 100'000; ++step) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const auto u = static_cast<std::uint32_t>(x % kUsers);
    if ((x >> 20) % 2 == 0) {
      b.offer(u);
    } else {
      b.deliver(u);
    }
    std::string walk;
    for (std::uint32_t v = 0; v < kUsers && walk.empty(); ++v) {
      if (b.delivered(v) > b.offered(v)) {
        walk = "user " + std::to_string(v) + " got more writes than addressed";
      }
    }
    REQUIRE(b.error() == walk);
  }
}
