#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/stats.hpp"

using namespace skysim::analysis;
using Catch::Detail::Approx;

TEST_CASE("Student t quantiles match the published table") {
  // Two-sided 95 %: t(0.975, df) from any statistics table.
  CHECK(student_t_quantile(0.95, 1) == Approx(12.7062047).epsilon(1e-8));
  CHECK(student_t_quantile(0.95, 3) == Approx(3.1824463).epsilon(1e-8));
  CHECK(student_t_quantile(0.95, 10) == Approx(2.2281389).epsilon(1e-7));
  CHECK(student_t_quantile(0.95, 31) == Approx(2.0395134).epsilon(1e-7));
  CHECK(student_t_quantile(0.99, 30) == Approx(2.7499957).epsilon(1e-7));
  CHECK_THROWS_AS(student_t_quantile(0.95, 0), std::invalid_argument);
  CHECK_THROWS_AS(student_t_quantile(1.5, 4), std::invalid_argument);
}

TEST_CASE("summary of a sample: mean, sample sd and t interval") {
  std::vector<double> xs{2, 4, 4, 4, 5, 5, 7, 9};
  auto s = summarize(xs);
  CHECK(s.n == 8);
  CHECK(s.mean == Approx(5.0));
  CHECK(s.sd == Approx(std::sqrt(32.0 / 7.0)));  // n - 1 in the denominator, not n
  double half = 2.3646243 * std::sqrt(32.0 / 7.0) / std::sqrt(8.0);
  CHECK(s.ci_low == Approx(5.0 - half).epsilon(1e-7));
  CHECK(s.ci_high == Approx(5.0 + half).epsilon(1e-7));
}

TEST_CASE("a single seed has no spread to estimate; bad samples are refused") {
  std::vector<double> one{3.5};
  auto s = summarize(one);
  CHECK(s.n == 1);
  CHECK(s.sd == 0);
  CHECK(s.ci_low == 3.5);
  CHECK(s.ci_high == 3.5);
  CHECK_THROWS_AS(summarize(std::vector<double>{}), std::invalid_argument);
  CHECK_THROWS_WITH(summarize(std::vector<double>{1, std::nan(""), 2}), Catch::Contains("NaN"));
}

TEST_CASE("interval overlap and ratio to the first variant") {
  SampleSummary a{10, 100, 5, 96, 104};
  SampleSummary b{10, 110, 5, 104, 116};  // touches at 104: overlapping
  SampleSummary c{10, 120, 5, 115, 125};
  CHECK(intervals_overlap(a, b));
  CHECK(intervals_overlap(b, a));
  CHECK_FALSE(intervals_overlap(a, c));
  CHECK(ratio_of_means(a, c) == Approx(1.2));
  SampleSummary zero{10, 0, 1, -1, 1};
  CHECK(std::isnan(ratio_of_means(zero, a)));
}

TEST_CASE("least-squares trend with the slope's confidence interval") {
  std::vector<double> x{1, 2, 3, 4, 5};
  std::vector<double> y{2.1, 3.9, 6.2, 7.8, 10.1};
  auto f = fit_line(x, y);
  // By hand: Sxx = 10, Sxy = 19.9, SSE = 0.107, SST = 39.708, t(0.975, 3) = 3.1824463.
  CHECK(f.n == 5);
  CHECK(f.slope == Approx(1.99));
  CHECK(f.intercept == Approx(0.05));
  CHECK(f.r_squared == Approx(1 - 0.107 / 39.708));
  double half = 3.1824463 * std::sqrt(0.107 / 3 / 10);
  CHECK(f.slope_ci_low == Approx(1.99 - half).epsilon(1e-6));
  CHECK(f.slope_ci_high == Approx(1.99 + half).epsilon(1e-6));
}

TEST_CASE("a trend needs at least two distinct parameter values") {
  std::vector<double> x{2, 2, 2};
  std::vector<double> y{1, 2, 3};
  CHECK_THROWS_WITH(fit_line(x, y), Catch::Contains("single value"));
  CHECK_THROWS_AS(fit_line(std::vector<double>{1, 2}, std::vector<double>{1, 2}),
                  std::invalid_argument);
}

TEST_CASE("paired difference: per-seed differences, t interval and p-value") {
  // d = {0.5, 0.4, 0.7, 0.2}: mean 0.45, sd sqrt(0.13 / 3), t = 4.3235 with 3 df; the two-sided
  // p-value 0.0228073 is I_{3/(3+t^2)}(3/2, 1/2), computed independently with mpmath.
  std::vector<double> base{1, 2, 3, 4}, other{1.5, 2.4, 3.7, 4.2};
  auto p = paired_difference(base, other);
  CHECK(p.n == 4);
  CHECK(p.mean == Approx(0.45));
  CHECK(p.sd == Approx(std::sqrt(0.13 / 3)));
  double half = 3.1824463 * std::sqrt(0.13 / 3) / 2;
  CHECK(p.ci_low == Approx(0.45 - half).epsilon(1e-7));
  CHECK(p.ci_high == Approx(0.45 + half).epsilon(1e-7));
  CHECK(p.p_value == Approx(0.0228073102698).epsilon(1e-9));
  CHECK(p.differs);
  // The other way round: the same p, the sign of the difference flips.
  auto q = paired_difference(other, base);
  CHECK(q.mean == Approx(-0.45));
  CHECK(q.p_value == Approx(p.p_value));
  // A shift that the seed noise hides unpaired is plain paired: base has spread 1..4, the
  // difference has almost none.
  CHECK(paired_difference(std::vector<double>{1, 2, 3, 4}, std::vector<double>{1.1, 2.1, 3.1, 4.2})
            .differs);
}

TEST_CASE("paired difference with zero variance is a verdict, not a NaN") {
  std::vector<double> a{3, 7, 11, 2};
  auto same = paired_difference(a, a);  // identical variants on common seeds
  CHECK(same.mean == 0);
  CHECK(same.sd == 0);
  CHECK(same.p_value == 1);
  CHECK_FALSE(same.differs);
  CHECK(same.ci_low == 0);
  CHECK(same.ci_high == 0);
  auto shifted = paired_difference(a, std::vector<double>{4, 8, 12, 3});  // exactly +1 per seed
  CHECK(shifted.p_value == 0);
  CHECK(shifted.differs);
  CHECK_THROWS_WITH(paired_difference(std::vector<double>{1}, std::vector<double>{2}),
                    Catch::Contains("at least 2 seeds"));
  CHECK_THROWS_AS(paired_difference(a, std::vector<double>{1, 2}), std::invalid_argument);
}
