// KeepBound: the lossy filter's per-user binomial lower bound (fanout.kept-ge-loss-factor).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

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

namespace {
// The bound's verdict by a walk over every user, as check() did before it went incremental.
std::string walk(const std::vector<double>& mean, const std::vector<double>& var,
                 const std::vector<std::uint32_t>& kept) {
  for (std::size_t u = 0; u < kept.size(); ++u) {
    double floor = mean[u] - 6 * std::sqrt(var[u]) - 1;
    if (static_cast<double>(kept[u]) < floor) {
      return "user " + std::to_string(u) + " kept " + std::to_string(kept[u]) +
             " times, expected " + std::to_string(mean[u]) + " (6 sd below: " +
             std::to_string(floor) + ")";
    }
  }
  return "";
}
}  // namespace

TEST_CASE("the incremental check gives the walk's verdict and message after every step") {
  // A filter that keeps some users fairly and starves others, with checks between random
  // steps: each check must equal a walk over all users, so a violation is reported at the
  // first check after the step that made it, and stops being reported once it is made good.
  constexpr std::size_t kUsers = 64;
  fanout::KeepBound b(kUsers);
  std::vector<double> mean(kUsers, 0), var(kUsers, 0);
  std::vector<std::uint32_t> kept(kUsers, 0);
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  int failing_checks = 0, recovered = 0;
  std::string last;
  for (int step = 0; step < 200'000; ++step) {
    const auto u = static_cast<std::uint32_t>(next() % kUsers);
    const double q = (u % 8 == 0) ? 1.0 : 0.5;
    if (next() % 3 != 0) {
      b.addressed(u, q);
      mean[u] += q;
      var[u] += q * (1 - q);
    }
    // Users 0, 8, 16...: kept far less than q (starved) until step 50,000, then over-kept.
    const bool starve = u % 8 == 0 && step < 50'000;
    if (next() % (starve ? 8 : 2) == 0 || (u % 8 == 0 && step >= 50'000)) {
      b.kept(u);
      ++kept[u];
    }
    if (next() % 50 == 0) {
      const std::string got = b.check();
      REQUIRE(got == walk(mean, var, kept));
      if (!got.empty()) ++failing_checks;
      if (!last.empty() && got.empty()) ++recovered;
      last = got;
    }
  }
  CHECK(failing_checks > 0);  // the starved users broke the bound...
  CHECK(recovered > 0);       // ...and the verdict followed them back
}
