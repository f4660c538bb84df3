#pragma once
// Plain-data parameter schema for models: a model declares what it accepts next to its Config,
//
//   static std::vector<sim::ParamSpec> params() {
//     return {
//         {"workers", sim::ParamType::Count, "", "8", 1, 100000, {}, "concurrent workers"},
//         {"service_time", sim::ParamType::Distribution, "duration", "{exponential: {mean: 2ms}}",
//          {}, {}, {}, "time one request holds a worker"},
//     };
//   }
//
// and reads the values the scenario loader resolved (defaults filled in, units converted):
//
//   Config c{.workers = v.count("workers"), .service_time = v.distribution("service_time")};
//
// A model never sees YAML. The text of `default_text` is parsed by the same unit parser as the
// scenario file (scenarios/units.hpp), so "15ms", "32GiB", "20k/s" and "99.9%" all work there.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/rng.hpp"
#include "sim/time.hpp"

namespace sim {

enum class ParamType {
  Int,           // plain integer, may be negative: "-3", "1_000"
  Count,         // non-negative integer with SI suffix: "15k", "2M"
  Double,        // real number: "0.25", "1e-3"
  Duration,      // "600us", "30m" -> ns
  Size,          // "32GiB", "64KiB", "1.5MB", "512" -> bytes
  Rate,          // "2.5/s", "20k/s", "100/min" -> events per second
  Percent,       // "99.9%" -> 0.999 (a bare number in [0,1] is also accepted)
  Bool,          // true/false/yes/no/on/off
  String,        // free text
  Enum,          // one of ParamSpec::choices
  Date,          // ISO-8601 -> unix ns
  Distribution,  // {exponential: {mean: 2ms}} ... (unit says "duration", "size" or "count")
};

const char* to_string(ParamType t);

// How a scenario's `scale` (its size knob, docs/scenarios.md "Scale") changes a parameter's
// value before the model sees it. The value written in a scenario is always the full-size one.
enum class Scaling {
  None,       // does not shrink with the host: times, per-object sizes, limits of the kernel or Go
  Extensive,  // an amount the host has (cores, memory, a pool, a key space): times `scale`
  Inverse,    // a cost per unit of an extensive amount (a port search's per-port time): / scale
};

// One declared parameter. `default_text` empty = required. min/max bound the value in the
// type's base unit (ns, bytes, per-second, fraction); for distributions they bound the mean.
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Double;
  std::string unit;  // shown in docs; for Distribution: "duration", "size" or "count"
  std::optional<std::string> default_text;
  std::optional<double> min;
  std::optional<double> max;
  std::vector<std::string> choices;  // Enum only
  std::string doc;                   // one line; say where the default comes from
  bool settable = false;             // may the timeline / a fault change it during a run?
  // String: a comma-separated list of clients of the scenario's sources; a value given in the
  // scenario must name only clients some source has (a typo would silently match nothing).
  bool names_clients = false;
  Scaling scaling = Scaling::None;
};

// What a distribution's samples measure, so a service time cannot be given as "5GiB".
enum class Quantity { Number, Duration, Size };

// A sampling distribution built from the scenario (scenarios/distributions.hpp has them).
// Samples are in base units: ns for durations, bytes for sizes.
class Distribution {
 public:
  virtual ~Distribution() = default;
  virtual double sample(Rng& rng) const = 0;
  virtual double mean() const = 0;
  // Flow-style YAML that parses back to the same distribution: "{exponential: {mean: 2ms}}".
  virtual std::string to_yaml() const = 0;
  Quantity quantity() const { return quantity_; }

  Duration sample_duration(Rng& rng) const { return clamp_to_int(sample(rng)); }
  std::int64_t sample_int(Rng& rng) const { return clamp_to_int(sample(rng)); }

 protected:
  explicit Distribution(Quantity q) : quantity_(q) {}
  static std::int64_t clamp_to_int(double v) {
    if (!(v > 0)) return 0;  // also maps NaN to 0
    if (v >= 9.2e18) return INT64_MAX;
    return static_cast<std::int64_t>(v + 0.5);
  }

 private:
  Quantity quantity_;
};

using DistributionPtr = std::shared_ptr<const Distribution>;

// One resolved value. `text` is the canonical spelling, used when a scenario is printed back.
struct ParamValue {
  ParamType type = ParamType::Double;
  std::int64_t integer = 0;  // Int, Count, Duration, Size, Bool (0/1), Date
  double number = 0;         // Double, Rate, Percent (and a copy of integer for numeric types)
  std::string text;          // String, Enum, and the canonical text of every type
  DistributionPtr distribution;
};

class ParamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The resolved parameters of one model instance, looked up by name with a typed getter.
// A getter of the wrong type or an undeclared name is a programming error -> ParamError.
class ParamValues {
 public:
  void set(std::string name, ParamValue v) { values_[std::move(name)] = std::move(v); }
  bool has(std::string_view name) const { return values_.find(name) != values_.end(); }
  const ParamValue& get(std::string_view name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw ParamError("no parameter '" + std::string(name) + "'");
    return it->second;
  }
  const std::map<std::string, ParamValue, std::less<>>& all() const { return values_; }

  std::int64_t integer(std::string_view n) const { return typed(n, ParamType::Int).integer; }
  std::int64_t count(std::string_view n) const { return typed(n, ParamType::Count).integer; }
  double real(std::string_view n) const { return typed(n, ParamType::Double).number; }
  Duration duration(std::string_view n) const { return typed(n, ParamType::Duration).integer; }
  std::int64_t size_bytes(std::string_view n) const { return typed(n, ParamType::Size).integer; }
  double rate_per_s(std::string_view n) const { return typed(n, ParamType::Rate).number; }
  double fraction(std::string_view n) const { return typed(n, ParamType::Percent).number; }
  bool flag(std::string_view n) const { return typed(n, ParamType::Bool).integer != 0; }
  const std::string& string(std::string_view n) const { return typed(n, ParamType::String).text; }
  const std::string& choice(std::string_view n) const { return typed(n, ParamType::Enum).text; }
  std::int64_t date_unix_ns(std::string_view n) const { return typed(n, ParamType::Date).integer; }
  const Distribution& distribution(std::string_view n) const {
    return *typed(n, ParamType::Distribution).distribution;
  }
  DistributionPtr distribution_ptr(std::string_view n) const {
    return typed(n, ParamType::Distribution).distribution;
  }

 private:
  const ParamValue& typed(std::string_view n, ParamType t) const {
    const ParamValue& v = get(n);
    if (v.type != t) {
      throw ParamError("parameter '" + std::string(n) + "' is a " + to_string(v.type) +
                       ", read as a " + to_string(t));
    }
    return v;
  }
  std::map<std::string, ParamValue, std::less<>> values_;
};

inline const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::Int:
      return "integer";
    case ParamType::Count:
      return "count";
    case ParamType::Double:
      return "number";
    case ParamType::Duration:
      return "duration";
    case ParamType::Size:
      return "size";
    case ParamType::Rate:
      return "rate";
    case ParamType::Percent:
      return "percentage";
    case ParamType::Bool:
      return "boolean";
    case ParamType::String:
      return "string";
    case ParamType::Enum:
      return "enum";
    case ParamType::Date:
      return "date";
    case ParamType::Distribution:
      return "distribution";
  }
  return "?";
}

}  // namespace sim
