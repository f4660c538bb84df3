// The heavy-tailed follow counts (issue 23, deliverable 3) against their theory: with
// exact_follow_counts the ordinary users' follow counts are draws of min(round(Pareto), cap),
// so their empirical CDF is within the Kolmogorov-Smirnov bound of follow_count_cdf, and at
// the fan-out scenario's size and defaults users between 2,000 and 300,000 follows exist in
// the number the tail predicts.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "models/social/population.hpp"

using namespace social;

namespace {

std::vector<std::uint32_t> ordinary_counts(const FollowGraph& g, std::uint32_t users) {
  std::vector<std::uint32_t> k(users);
  for (UserId u = 0; u < users; ++u) {
    k[u] = g.follow_count(u);
  }
  std::sort(k.begin(), k.end());
  return k;
}

// sup_k |F_n(k) - F(k)| over the observed values (a step CDF changes only there), also just
// below each (F_n(k-1) against F(k-1)).
double ks_distance(const std::vector<std::uint32_t>& sorted, const PopulationSpec& spec) {
  const double n = static_cast<double>(sorted.size());
  double d = 0;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    const double k = sorted[i];
    d = std::max(d, std::abs(static_cast<double>(j) / n - follow_count_cdf(spec, k)));
    d = std::max(d, std::abs(static_cast<double>(i) / n - follow_count_cdf(spec, k - 1)));
    i = j;
  }
  return d;
}

PopulationSpec tail_spec(std::uint32_t users) {
  PopulationSpec spec;
  spec.users = users;
  spec.mean_follows = 5;  // the fan-out scenario's defaults (scenarios/kind_fanout.cpp)
  spec.follows_alpha = 1.3;
  spec.max_follows = 300'000;
  spec.exact_follow_counts = true;
  return spec;
}

}  // namespace

TEST_CASE("follow tail: exact counts match the truncated Pareto within the KS bound") {
  const PopulationSpec spec = tail_spec(200'000);
  for (std::uint64_t seed : {1, 2, 3}) {
    sim::Rng rng(seed);
    const FollowGraph g = build_population(spec, rng);
    const auto k = ordinary_counts(g, spec.users);
    const double d = ks_distance(k, spec);
    // 1.95/sqrt(n): the KS critical value at 0.1 % for a continuous F, conservative for a
    // discrete one.
    std::printf("seed %llu: KS D = %.5f (bound %.5f)\n", static_cast<unsigned long long>(seed), d,
                1.95 / std::sqrt(static_cast<double>(spec.users)));
    INFO("seed " << seed << " D = " << d);
    CHECK(d < 1.95 / std::sqrt(static_cast<double>(spec.users)));
  }
}

TEST_CASE("follow tail: at 2.05M users, accounts between 2,000 and 300,000 follows exist as predicted",
          "[heavy]") {
  const PopulationSpec spec = tail_spec(2'050'000);
  sim::Rng rng(7);
  const FollowGraph g = build_population(spec, rng);
  const auto k = ordinary_counts(g, spec.users);
  const auto above = [&](double x) {
    return static_cast<double>(k.end() - std::upper_bound(k.begin(), k.end(), x));
  };
  // Expected users above x: n (1 - F(x)); Poisson, so within 4 sqrt of it.
  for (double x : {2'000.0, 10'000.0}) {
    const double expect = spec.users * (1.0 - follow_count_cdf(spec, x));
    std::printf("2.05M users: %.0f above %.0f follows, expected %.1f; the most: %u\n", above(x),
                x, expect, k.back());
    INFO("above " << x << ": " << above(x) << " expected " << expect);
    CHECK(std::abs(above(x) - expect) < 4 * std::sqrt(expect) + 1);
  }
  CHECK(above(2'000) >= 50);  // ~120 expected: the heavy class the lossy filter thins
  CHECK(k.back() <= 300'000);
  CHECK(above(300'000) == 0);
}

TEST_CASE("follow tail: the same seed draws the same graph, another seed another") {
  const PopulationSpec spec = tail_spec(50'000);
  sim::Rng a(11);
  sim::Rng b(11);
  sim::Rng c(12);
  const FollowGraph ga = build_population(spec, a);
  const FollowGraph gb = build_population(spec, b);
  const FollowGraph gc = build_population(spec, c);
  CHECK(ga.edges() == gb.edges());
  bool same_ab = true;
  bool same_ac = ga.edges() == gc.edges();
  for (UserId u = 0; u < spec.users; ++u) {
    same_ab = same_ab && ga.follow_count(u) == gb.follow_count(u) &&
              std::equal(ga.follows(u).begin(), ga.follows(u).end(), gb.follows(u).begin());
    same_ac = same_ac && ga.follow_count(u) == gc.follow_count(u);
  }
  CHECK(same_ab);
  CHECK_FALSE(same_ac);
}
