// KeepBound: the lossy filter's per-user binomial lower bound (fanout.kept-ge-loss-factor).
#include <catch2/catch.hpp>

#include "models/fanout/keep_bound.hpp"

TEST_CASE("a user kept about its loss factor's share of pages passes, far fewer fails") {
  fanout::KeepBound b(2);
  for (int page = 0; page < 1000; ++page) {
    b.addressed(0, 0.5);
    b.addressed(1, 0.5);
    if (page % 2 == 0) b.kept(0);  // 500 of 1000: the mean
    if (page % 10 == 0) b.kept(1);  // 100 of 1000: 25 sd below
  }
  CHECK(b.check().rfind("user 1 kept 100 times", 0) == 0);
  fanout::KeepBound fair(1);
  for (int page = 0; page < 1000; ++page) {
    fair.addressed(0, 0.5);
    if (page % 2 == 0 || page % 97 == 0) fair.kept(0);
  }
  CHECK(fair.check().empty());
}

TEST_CASE("a small mean is not a violation: the bound keeps one row of slack") {
  fanout::KeepBound b(1);
  b.addressed(0, 0.9);
  CHECK(b.check().empty());  // kept 0 of 1 at q = 0.9: unlikely, not impossible
  fanout::KeepBound always(1);
  for (int page = 0; page < 50; ++page) always.addressed(0, 1.0);  // full keep: variance 0
  CHECK_FALSE(always.check().empty());
}
