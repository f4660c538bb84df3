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

// Paired comparison of two variants run on the same seeds (common random numbers): the
// per-seed differences d_i = other_i - base_i, their mean with a Student t confidence interval
// (n - 1 df) and the two-sided p-value of "mean difference = 0". Pairing removes the seed's own
// noise, which both variants share, so a real effect shows with far fewer seeds than two
// independent intervals need.
struct PairedDifference {
  int n = 0;          // pairs (seeds where both variants have a value)
  double mean = 0;    // mean of d
  double sd = 0;      // sample standard deviation of d (n - 1)
  double ci_low = 0;  // confidence interval of mean(d)
  double ci_high = 0;
  double p_value = 1;    // two-sided paired t-test
  bool differs = false;  // p_value < 1 - confidence, i.e. the interval excludes 0
};

// base[i] and other[i] are the same seed. Needs at least 2 pairs (the spread of d cannot be
// estimated from one) and finite values; throws std::invalid_argument otherwise. When every
// difference is the same (sd = 0) there is no noise to test against: all zero is "no
// difference" (p = 1, as identical variants on common seeds give), any other constant is a
// certain difference (p = 0) — never a NaN.
PairedDifference paired_difference(std::span<const double> base, std::span<const double> other,
                                   double confidence = 0.95);

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
