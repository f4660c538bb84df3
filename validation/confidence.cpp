#include "validation/confidence.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

namespace skysim::validation {

Interval replication_interval(std::span<const double> per_seed, double confidence) {
  if (per_seed.size() < 2) {
    throw std::invalid_argument("replication_interval: need at least 2 replications, got " +
                                std::to_string(per_seed.size()));
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("replication_interval: confidence must be in (0, 1)");
  }
  Interval r;
  r.n = static_cast<int>(per_seed.size());
  r.confidence = confidence;
  for (double x : per_seed) {
    if (!std::isfinite(x)) throw std::invalid_argument("replication_interval: non-finite value");
    r.mean += x;
  }
  r.mean /= r.n;
  double ss = 0;
  for (double x : per_seed) ss += (x - r.mean) * (x - r.mean);
  r.sd = std::sqrt(ss / (r.n - 1));
  boost::math::students_t t(r.n - 1);
  double q = boost::math::quantile(t, 1 - (1 - confidence) / 2);
  r.half_width = q * r.sd / std::sqrt(static_cast<double>(r.n));
  return r;
}

Interval batch_means_interval(std::span<const double> series, int batches, double confidence) {
  if (batches < 2 || series.size() < static_cast<std::size_t>(batches)) {
    throw std::invalid_argument("batch_means_interval: need >= 2 batches and one value each");
  }
  std::size_t per = series.size() / static_cast<std::size_t>(batches);
  std::vector<double> means;
  for (int b = 0; b < batches; ++b) {
    double s = 0;
    for (std::size_t i = 0; i < per; ++i) s += series[b * per + i];
    means.push_back(s / static_cast<double>(per));
  }
  return replication_interval(means, confidence);
}

double chi_square_uniform_p(std::span<const long> counts) {
  if (counts.size() < 2) throw std::invalid_argument("chi_square_uniform_p: need >= 2 cells");
  double total = 0;
  for (long c : counts) total += static_cast<double>(c);
  double expected = total / static_cast<double>(counts.size());
  double stat = 0;
  for (long c : counts) stat += (c - expected) * (c - expected) / expected;
  boost::math::chi_squared dist(static_cast<double>(counts.size() - 1));
  return boost::math::cdf(boost::math::complement(dist, stat));
}

KsResult ks_exponential(std::vector<double> samples, double mean) {
  if (samples.empty() || !(mean > 0)) {
    throw std::invalid_argument("ks_exponential: need samples and a positive mean");
  }
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  KsResult r;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    double f = 1 - std::exp(-samples[i] / mean);
    r.d = std::max({r.d, (static_cast<double>(i) + 1) / n - f, f - static_cast<double>(i) / n});
  }
  // Kolmogorov's limiting law: P(K > x) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 x^2).
  double x = (std::sqrt(n) + 0.12 + 0.11 / std::sqrt(n)) * r.d;
  double p = 0;
  for (int k = 1; k <= 100; ++k) {
    double term = std::exp(-2.0 * k * k * x * x);
    p += (k % 2 == 1 ? 2 : -2) * term;
    if (term < 1e-12) break;
  }
  r.p = std::clamp(p, 0.0, 1.0);
  return r;
}

}  // namespace skysim::validation
