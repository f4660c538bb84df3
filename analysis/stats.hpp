#pragma once
// Statistics over seeds: the numbers an engineer needs to say "variant B is better than A"
// honestly. Quantiles come from Boost.Math (Student's t), least squares from Eigen.
#include <span>
#include <vector>

namespace skysim::analysis {

// One metric of one variant over its seeds.
struct SampleSummary {
  int n = 0;
  double mean = 0;
  double sd = 0;       // sample standard deviation (n - 1 in the denominator); 0 when n < 2
  double ci_low = 0;   // 95 % confidence interval of the mean, Student t with n - 1 df;
  double ci_high = 0;  // collapses to the mean when n < 2 (no spread can be estimated)
};

// Two-sided Student t quantile for `confidence` (e.g. 0.95) with `df` degrees of freedom.
double student_t_quantile(double confidence, int df);

// Throws std::invalid_argument on an empty sample or a non-finite value.
SampleSummary summarize(std::span<const double> xs, double confidence = 0.95);

// Whether two confidence intervals share any point (inclusive).
bool intervals_overlap(const SampleSummary& a, const SampleSummary& b);

// mean(b) / mean(a); NaN when mean(a) is zero (a ratio to zero says nothing).
double ratio_of_means(const SampleSummary& base, const SampleSummary& other);

// Ordinary least squares y = intercept + slope * x, solved with Eigen, with the slope's 95 %
// confidence interval (t with n - 2 df) — "how much does the metric move per unit of the
// parameter, and is that distinguishable from zero".
struct LinearFit {
  int n = 0;
  double intercept = 0;
  double slope = 0;
  double slope_ci_low = 0;
  double slope_ci_high = 0;
  double r_squared = 0;
};

// Needs at least three points and two distinct x; throws std::invalid_argument otherwise.
LinearFit fit_line(std::span<const double> x, std::span<const double> y,
                   double confidence = 0.95);

}  // namespace skysim::analysis
