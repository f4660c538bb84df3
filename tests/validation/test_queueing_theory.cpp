// The analytic side checked on its own, against values published in the literature and
// against each other (a formula bug would otherwise be "validated" by a matching model bug).
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "validation/queueing_theory.hpp"

using namespace skysim::validation;

TEST_CASE("Erlang C matches tabulated values and reduces to rho for one server") {
  CHECK(erlang_c(1, 0.7) == Approx(0.7));
  CHECK(erlang_c(4, 3.0) == Approx(0.5094).epsilon(1e-4));    // c = 4, a = 3 (standard table)
  CHECK(erlang_c(2, 1.0) == Approx(1.0 / 3.0).epsilon(1e-12));  // 2 a^2 / (2 + a) / ... at a=1
  CHECK(mmc_mean_wait(1, 70, 100) == Approx(0.7 / 30));
  CHECK_THROWS_AS(erlang_c(2, 2.0), std::invalid_argument);
  CHECK_THROWS_AS(erlang_c(0, 0.5), std::invalid_argument);
}

TEST_CASE("M/D/1 waits half as long as M/M/1 at the same load (Pollaczek-Khinchine)") {
  CHECK(md1_mean_wait(70, 0.010) == Approx(mmc_mean_wait(1, 70, 100) / 2));
  CHECK_THROWS_AS(md1_mean_wait(100, 0.010), std::invalid_argument);
}

TEST_CASE("M/M/c/K stationary distribution from the generator matches the product form") {
  const int c = 2, k = 5;
  const double lambda = 180, mu = 100;
  MmckSolution s = solve_mmck(c, k, lambda, mu);
  REQUIRE(s.pi.size() == 6);
  double w = 1, total = 0;
  std::vector<double> product{1};
  for (int n = 1; n <= k; ++n) product.push_back(w *= lambda / (std::min(n, c) * mu));
  for (double x : product) total += x;
  for (int n = 0; n <= k; ++n) CHECK(s.pi[n] == Approx(product[n] / total).epsilon(1e-10));
  CHECK(s.blocking == Approx(0.14107688521809353).epsilon(1e-10));
  CHECK(s.residual < 1e-9);
  // A large K approaches M/M/c: the queue part of the mean matches Erlang C's Lq.
  MmckSolution big = solve_mmck(4, 400, 300, 100);
  CHECK(big.mean_in_queue == Approx(300 * mmc_mean_wait(4, 300, 100)).epsilon(1e-6));
}

TEST_CASE("exact MVA: one station with no think time is the closed M/M/1 with N jobs") {
  // N customers, Z = 0, one station: all N are always at the station, X = 1/D.
  MvaResult r = exact_mva(5, 0.0, {0.02});
  CHECK(r.throughput == Approx(50));
  CHECK(r.response_time == Approx(0.1));
  // Asymptotic bounds: X(N) <= min(N / (D + Z), 1 / D_max), and X grows with N.
  MvaResult a = exact_mva(12, 0.5, {0.04, 0.06});
  MvaResult b = exact_mva(13, 0.5, {0.04, 0.06});
  CHECK(a.throughput <= std::min(12 / 0.6, 1 / 0.06));
  CHECK(b.throughput > a.throughput);
  // Little's law over the whole cycle holds inside the recursion.
  CHECK(a.throughput * (a.response_time + 0.5) == Approx(12));
}
