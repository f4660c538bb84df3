#pragma once
// How a simulated number earns a tolerance: independent replications (one seed each, so the
// per-seed values are i.i.d.) give a mean and a Student-t confidence interval; nothing here
// is a hand-picked margin. Quantiles come from Boost.Math.
#include <span>
#include <vector>

namespace skysim::validation {

struct Interval {
  int n = 0;              // replications
  double mean = 0;
  double sd = 0;          // sample standard deviation over the replications
  double half_width = 0;  // t_{1-alpha/2, n-1} * sd / sqrt(n)
  double confidence = 0;  // 1 - alpha
  double low() const { return mean - half_width; }
  double high() const { return mean + half_width; }
  bool contains(double x) const { return x >= low() && x <= high(); }
};

// Two-sided Student-t interval of the mean at `confidence`. Needs n >= 2 finite values
// (throws std::invalid_argument otherwise).
Interval replication_interval(std::span<const double> per_seed, double confidence);

// The same from batch means: one long run cut into `batches` equal consecutive batches,
// each batch mean treated as one (approximately independent) observation.
Interval batch_means_interval(std::span<const double> series, int batches, double confidence);

// Upper-tail p-value of Pearson's chi-square statistic for equally likely categories.
double chi_square_uniform_p(std::span<const long> counts);

// One-sample Kolmogorov–Smirnov: D = sup |F_n - F| and its asymptotic p-value (Stephens'
// small-sample correction sqrt(n) + 0.12 + 0.11 / sqrt(n)).
struct KsResult {
  double d = 0;
  double p = 0;
};
KsResult ks_exponential(std::vector<double> samples, double mean);

}  // namespace skysim::validation
