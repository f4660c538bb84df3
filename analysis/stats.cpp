#include "analysis/stats.hpp"

#include <Eigen/Dense>
#include <boost/math/distributions/students_t.hpp>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace skysim::analysis {

double student_t_quantile(double confidence, int df) {
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("confidence must lie in (0, 1), got " +
                                std::to_string(confidence));
  }
  if (df < 1) {
    throw std::invalid_argument("Student t needs at least 1 degree of freedom, got " +
                                std::to_string(df));
  }
  boost::math::students_t dist(static_cast<double>(df));
  return boost::math::quantile(dist, 0.5 + confidence / 2);
}

SampleSummary summarize(std::span<const double> xs, double confidence) {
  if (xs.empty()) {
    throw std::invalid_argument("summarize: empty sample");
  }
  SampleSummary s;
  s.n = static_cast<int>(xs.size());
  Eigen::Map<const Eigen::ArrayXd> a(xs.data(), static_cast<Eigen::Index>(xs.size()));
  if (!a.allFinite()) {
    throw std::invalid_argument("summarize: sample holds a NaN or infinite value");
  }
  s.mean = a.mean();
  s.ci_low = s.ci_high = s.mean;
  if (s.n < 2) {
    return s;
  }
  s.sd = std::sqrt((a - s.mean).square().sum() / (s.n - 1));
  double half = student_t_quantile(confidence, s.n - 1) * s.sd / std::sqrt(double(s.n));
  s.ci_low = s.mean - half;
  s.ci_high = s.mean + half;
  return s;
}

bool intervals_overlap(const SampleSummary& a, const SampleSummary& b) {
  return a.ci_low <= b.ci_high && b.ci_low <= a.ci_high;
}

double ratio_of_means(const SampleSummary& base, const SampleSummary& other) {
  if (base.mean == 0) {
    return std::nan("");
  }
  return other.mean / base.mean;
}

PairedDifference paired_difference(std::span<const double> base, std::span<const double> other,
                                   double confidence) {
  if (base.size() != other.size()) {
    throw std::invalid_argument("paired_difference: the variants have different seed counts");
  }
  if (base.size() < 2) {
    throw std::invalid_argument("paired_difference: needs at least 2 seeds, got " +
                                std::to_string(base.size()));
  }
  std::vector<double> d(base.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    d[i] = other[i] - base[i];
  }
  SampleSummary s = summarize(d, confidence);  // checks finiteness; CI of mean(d)
  PairedDifference p;
  p.n = s.n;
  p.mean = s.mean;
  p.sd = s.sd;
  p.ci_low = s.ci_low;
  p.ci_high = s.ci_high;
  if (p.sd == 0) {
    p.p_value = p.mean == 0 ? 1.0 : 0.0;
  } else {
    double t = p.mean / (p.sd / std::sqrt(static_cast<double>(p.n)));
    boost::math::students_t dist(static_cast<double>(p.n - 1));
    p.p_value = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(dist, std::abs(t))));
  }
  p.differs = p.p_value < 1 - confidence;
  return p;
}

LinearFit fit_line(std::span<const double> x, std::span<const double> y, double confidence) {
  if (x.size() != y.size()) {
    throw std::invalid_argument("fit_line: x and y differ in length");
  }
  if (x.size() < 3) {
    throw std::invalid_argument("fit_line: needs at least 3 points, got " +
                                std::to_string(x.size()));
  }
  auto n = static_cast<Eigen::Index>(x.size());
  Eigen::MatrixXd design(n, 2);
  Eigen::VectorXd obs(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    design(i, 0) = 1.0;
    design(i, 1) = x[static_cast<std::size_t>(i)];
    obs(i) = y[static_cast<std::size_t>(i)];
  }
  Eigen::Matrix2d gram = design.transpose() * design;
  Eigen::FullPivLU<Eigen::Matrix2d> lu(gram);
  if (!lu.isInvertible()) {
    throw std::invalid_argument("fit_line: x takes a single value; the slope is undefined");
  }
  Eigen::Vector2d beta = lu.solve(design.transpose() * obs);
  Eigen::VectorXd resid = obs - design * beta;
  double sse = resid.squaredNorm();
  double sst = (obs.array() - obs.mean()).square().sum();

  LinearFit f;
  f.n = static_cast<int>(n);
  f.intercept = beta(0);
  f.slope = beta(1);
  // Rounding can push 1 - sse/sst a hair below zero for a flat fit; R² of a line with an
  // intercept lies in [0, 1].
  f.r_squared = sst > 0 ? std::clamp(1 - sse / sst, 0.0, 1.0) : 1.0;
  double sigma2 = sse / static_cast<double>(n - 2);
  double slope_se = std::sqrt(sigma2 * lu.inverse()(1, 1));
  double half = student_t_quantile(confidence, f.n - 2) * slope_se;
  f.slope_ci_low = f.slope - half;
  f.slope_ci_high = f.slope + half;
  return f;
}

}  // namespace skysim::analysis
