#include <catch2/catch.hpp>
#include <cmath>

#include "sim/histogram.hpp"
#include "sim/rng.hpp"

using sim::Histogram;

TEST_CASE("histogram quantiles stay within the stated relative error") {
  Histogram h;
  sim::Rng rng(7);
  std::vector<std::int64_t> xs;
  for (int i = 0; i < 100000; ++i) {
    auto v = static_cast<std::int64_t>(rng.lognormal(13.0, 1.5));  // ~0.4 ms median, long tail
    xs.push_back(v);
    h.record(v);
  }
  std::sort(xs.begin(), xs.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    auto exact = xs[static_cast<std::size_t>(std::ceil(q * xs.size())) - 1];
    auto got = h.quantile(q);
    INFO("q=" << q << " exact=" << exact << " got=" << got);
    CHECK(std::abs(static_cast<double>(got - exact)) <= Histogram::kRelativeError * exact + 1);
  }
  CHECK(h.max() == xs.back());
  CHECK(h.count() == xs.size());
}

TEST_CASE("histograms merge by adding counts") {
  Histogram a, b, both;
  for (int i = 1; i <= 1000; ++i) {
    (i % 2 ? a : b).record(i * 1000);
    both.record(i * 1000);
  }
  a.merge(b);
  CHECK(a.count() == both.count());
  for (double q : {0.1, 0.5, 0.99}) CHECK(a.quantile(q) == both.quantile(q));
  CHECK(a.mean() == Approx(both.mean()));
}

TEST_CASE("bucket index and lowest value are inverse") {
  for (std::uint64_t v : {0ULL, 1ULL, 63ULL, 64ULL, 65ULL, 1000ULL, 123456789ULL, 1ULL << 62}) {
    auto i = Histogram::index_of(v);
    CHECK(Histogram::lowest_of(i) <= v);
    CHECK(Histogram::index_of(Histogram::lowest_of(i)) == i);
  }
}
