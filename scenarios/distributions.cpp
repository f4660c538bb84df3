#include "scenarios/distributions.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "scenarios/units.hpp"

namespace skysim::scenarios {
namespace {

const char* kExpected =
    "one of {constant: X}, {uniform: [lo, hi]}, {exponential: {mean: X}}, "
    "{lognormal: {median: X, p99: Y}}, {pareto: {scale: X, shape: A}}, {empirical: [..]}";

double parse_quantity(const std::string& text, sim::Quantity q) {
  switch (q) {
    case sim::Quantity::Duration:
      return static_cast<double>(parse_duration(text));
    case sim::Quantity::Size:
      return static_cast<double>(parse_size(text));
    case sim::Quantity::Number:
      return parse_real(text);
  }
  return 0;
}

std::string format_quantity(double v, sim::Quantity q) {
  switch (q) {
    case sim::Quantity::Duration:
      if (v == std::round(v) && std::fabs(v) < 9e18) {
        return sim::format_duration(static_cast<sim::Duration>(v));
      }
      return format_real(v) + "ns";
    case sim::Quantity::Size:
      if (v == std::round(v) && std::fabs(v) < 9e18) {
        return format_size(static_cast<std::int64_t>(v));
      }
      return format_real(v);
    case sim::Quantity::Number:
      return format_real(v);
  }
  return "?";
}

std::string scalar_of(const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar()) throw UnitError(what + " must be a single value", kExpected);
  return n.Scalar();
}

double quantity_of(const YAML::Node& n, const std::string& what, sim::Quantity q) {
  double v = parse_quantity(scalar_of(n, what), q);
  if (v < 0) throw UnitError(what + " must not be negative", "a value >= 0");
  return v;
}

class Constant final : public sim::Distribution {
 public:
  Constant(double v, sim::Quantity q) : Distribution(q), v_(v) {}
  double sample(sim::Rng&) const override { return v_; }
  double mean() const override { return v_; }
  std::string to_yaml() const override {
    return "{constant: " + format_quantity(v_, quantity()) + "}";
  }

 private:
  double v_;
};

class Uniform final : public sim::Distribution {
 public:
  Uniform(double lo, double hi, sim::Quantity q) : Distribution(q), lo_(lo), hi_(hi) {
    integral_ =
        q != sim::Quantity::Number || (lo == std::floor(lo) && hi == std::floor(hi) && hi < 9e18);
  }
  double sample(sim::Rng& rng) const override {
    if (integral_) {
      return static_cast<double>(
          rng.uniform_int(static_cast<std::int64_t>(lo_), static_cast<std::int64_t>(hi_)));
    }
    return rng.uniform(lo_, hi_);
  }
  double mean() const override { return (lo_ + hi_) / 2; }
  std::string to_yaml() const override {
    return "{uniform: [" + format_quantity(lo_, quantity()) + ", " +
           format_quantity(hi_, quantity()) + "]}";
  }

 private:
  double lo_, hi_;
  bool integral_ = false;
};

class Exponential final : public sim::Distribution {
 public:
  Exponential(double mean, sim::Quantity q) : Distribution(q), mean_(mean) {}
  double sample(sim::Rng& rng) const override { return rng.exponential(mean_); }
  double mean() const override { return mean_; }
  std::string to_yaml() const override {
    return "{exponential: {mean: " + format_quantity(mean_, quantity()) + "}}";
  }

 private:
  double mean_;
};

class Lognormal final : public sim::Distribution {
 public:
  Lognormal(double mu, double sigma, std::string text, sim::Quantity q)
      : Distribution(q), mu_(mu), sigma_(sigma), text_(std::move(text)) {}
  double sample(sim::Rng& rng) const override { return rng.lognormal(mu_, sigma_); }
  double mean() const override { return std::exp(mu_ + sigma_ * sigma_ / 2); }
  std::string to_yaml() const override { return text_; }

 private:
  double mu_, sigma_;
  std::string text_;
};

class Pareto final : public sim::Distribution {
 public:
  Pareto(double scale, double shape, sim::Quantity q)
      : Distribution(q), scale_(scale), shape_(shape) {}
  double sample(sim::Rng& rng) const override { return rng.pareto(scale_, shape_); }
  double mean() const override {
    return shape_ > 1 ? shape_ * scale_ / (shape_ - 1) : std::numeric_limits<double>::infinity();
  }
  std::string to_yaml() const override {
    return "{pareto: {scale: " + format_quantity(scale_, quantity()) +
           ", shape: " + format_real(shape_) + "}}";
  }

 private:
  double scale_, shape_;
};

class Empirical final : public sim::Distribution {
 public:
  Empirical(std::vector<double> v, sim::Quantity q) : Distribution(q), values_(std::move(v)) {}
  double sample(sim::Rng& rng) const override {
    return values_[static_cast<std::size_t>(
        rng.uniform_int(0, static_cast<std::int64_t>(values_.size()) - 1))];
  }
  double mean() const override {
    double s = 0;
    for (double v : values_) s += v;
    return s / static_cast<double>(values_.size());
  }
  std::string to_yaml() const override {
    std::string s = "{empirical: [";
    for (std::size_t i = 0; i < values_.size(); ++i) {
      s += (i ? ", " : "") + format_quantity(values_[i], quantity());
    }
    return s + "]}";
  }

 private:
  std::vector<double> values_;
};

// Checks that a parameter map has exactly the given keys (in any order).
void expect_keys(const YAML::Node& n, const std::string& dist,
                 std::initializer_list<const char*> keys) {
  if (!n.IsMap()) throw UnitError(dist + " takes a map of parameters", kExpected);
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (!it->first.IsScalar()) throw UnitError(dist + ": parameter names must be text", kExpected);
    bool known = false;
    for (const char* k : keys) known = known || it->first.Scalar() == k;
    if (!known) {
      throw UnitError(dist + ": unknown parameter '" + it->first.Scalar() + "'", kExpected);
    }
  }
}

}  // namespace

sim::Quantity quantity_of_unit(const std::string& unit) {
  if (unit == "duration") return sim::Quantity::Duration;
  if (unit == "size") return sim::Quantity::Size;
  return sim::Quantity::Number;
}

sim::DistributionPtr parse_distribution(const YAML::Node& node, sim::Quantity q) {
  if (!node.IsMap() || node.size() != 1) {
    throw UnitError("a distribution is a map with exactly one name", kExpected);
  }
  auto it = node.begin();
  if (!it->first.IsScalar()) throw UnitError("distribution name must be text", kExpected);
  const std::string name = it->first.Scalar();
  const YAML::Node p = it->second;
  if (name == "constant") {
    return std::make_shared<Constant>(quantity_of(p, "constant", q), q);
  }
  if (name == "uniform") {
    if (!p.IsSequence() || p.size() != 2) {
      throw UnitError("uniform takes [lo, hi]", "{uniform: [lo, hi]}");
    }
    double lo = quantity_of(p[0], "uniform lo", q);
    double hi = quantity_of(p[1], "uniform hi", q);
    if (lo > hi) throw UnitError("uniform lo is above hi", "{uniform: [lo, hi]} with lo <= hi");
    return std::make_shared<Uniform>(lo, hi, q);
  }
  if (name == "exponential") {
    expect_keys(p, "exponential", {"mean"});
    if (!p["mean"]) throw UnitError("exponential needs a mean", "{exponential: {mean: X}}");
    double m = quantity_of(p["mean"], "exponential mean", q);
    if (!(m > 0)) throw UnitError("exponential mean must be positive", "a mean > 0");
    return std::make_shared<Exponential>(m, q);
  }
  if (name == "lognormal") {
    expect_keys(p, "lognormal", {"median", "p99", "mu", "sigma"});
    if (p["median"] && p["p99"] && !p["mu"] && !p["sigma"]) {
      double med = quantity_of(p["median"], "lognormal median", q);
      double p99 = quantity_of(p["p99"], "lognormal p99", q);
      if (!(med > 0) || !(p99 > med)) {
        throw UnitError("lognormal needs 0 < median < p99", "{lognormal: {median: X, p99: Y}}");
      }
      double mu = std::log(med);
      double sigma = std::log(p99 / med) / kZ99;
      return std::make_shared<Lognormal>(mu, sigma,
                                         "{lognormal: {median: " + format_quantity(med, q) +
                                             ", p99: " + format_quantity(p99, q) + "}}",
                                         q);
    }
    if (p["mu"] && p["sigma"] && !p["median"] && !p["p99"]) {
      double mu = parse_real(scalar_of(p["mu"], "lognormal mu"));
      double sigma = parse_real(scalar_of(p["sigma"], "lognormal sigma"));
      if (!(sigma > 0) || sigma > 20 || std::fabs(mu) > 60) {
        throw UnitError("lognormal needs 0 < sigma <= 20 and |mu| <= 60",
                        "{lognormal: {mu: M, sigma: S}} (of the log of base units)");
      }
      return std::make_shared<Lognormal>(
          mu, sigma,
          "{lognormal: {mu: " + format_real(mu) + ", sigma: " + format_real(sigma) + "}}", q);
    }
    throw UnitError("lognormal takes either {median, p99} or {mu, sigma}",
                    "{lognormal: {median: X, p99: Y}}");
  }
  if (name == "pareto") {
    expect_keys(p, "pareto", {"scale", "shape"});
    if (!p["scale"] || !p["shape"]) {
      throw UnitError("pareto needs scale and shape", "{pareto: {scale: X, shape: A}}");
    }
    double scale = quantity_of(p["scale"], "pareto scale", q);
    double shape = parse_real(scalar_of(p["shape"], "pareto shape"));
    if (!(scale > 0) || !(shape > 0)) {
      throw UnitError("pareto needs scale > 0 and shape > 0", "{pareto: {scale: X, shape: A}}");
    }
    return std::make_shared<Pareto>(scale, shape, q);
  }
  if (name == "empirical") {
    if (!p.IsSequence() || p.size() == 0) {
      throw UnitError("empirical takes a non-empty list of values", "{empirical: [v1, v2, ...]}");
    }
    if (p.size() > 1000000) throw UnitError("empirical list is too long", "at most 1000000 values");
    std::vector<double> v;
    v.reserve(p.size());
    for (const auto& e : p) v.push_back(quantity_of(e, "empirical value", q));
    return std::make_shared<Empirical>(std::move(v), q);
  }
  throw UnitError("unknown distribution '" + name + "'", kExpected);
}

sim::DistributionPtr parse_distribution_text(const std::string& text, sim::Quantity q) {
  YAML::Node n;
  try {
    n = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw UnitError("bad distribution text '" + text + "': " + e.msg, kExpected);
  }
  return parse_distribution(n, q);
}

}  // namespace skysim::scenarios
