#include "scenarios/param_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace skysim::scenarios {

namespace {
bool integral(sim::ParamType t) {
  switch (t) {
    case sim::ParamType::Int:
    case sim::ParamType::Count:
    case sim::ParamType::Size:
    case sim::ParamType::Duration:
      return true;
    default:
      return false;
  }
}
bool real(sim::ParamType t) {
  return t == sim::ParamType::Double || t == sim::ParamType::Rate;
}
}  // namespace

sim::ParamValue scaled_value(const sim::ParamSpec& spec, sim::ParamValue v, double scale) {
  if (spec.scaling == sim::Scaling::None || scale == 1.0) return v;
  const bool extensive = spec.scaling == sim::Scaling::Extensive;
  const double factor = extensive ? scale : 1.0 / scale;
  if (integral(v.type)) {
    if (v.integer == 0) return v;
    std::int64_t n = 0;
    if (extensive && v.integer > 0) {
      n = scaled_amount(v.integer, scale);
    } else {
      const double x = static_cast<double>(v.integer) * factor;
      // Saturate rather than overflow: an Inverse duration at a tiny scale.
      n = x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : std::llround(x);
    }
    v.integer = n;
    v.number = static_cast<double>(n);
  } else if (real(v.type)) {
    v.number *= factor;
  } else {
    // A declaration error, not a user's: only numeric parameters can scale.
    throw sim::ParamError("parameter '" + spec.name + "' of type " + to_string(v.type) +
                          " cannot scale");
  }
  return v;
}

std::int64_t scaled_amount(std::int64_t n, double scale) {
  if (n == 0) return 0;
  // Parameters stay under 1e15 and scale under 1000: no overflow.
  const double x = static_cast<double>(n) * scale;
  return std::max<std::int64_t>(1, std::llround(x));
}

sim::ParamValues scaled_values(const std::vector<sim::ParamSpec>& specs,
                               const sim::ParamValues& values, double scale) {
  sim::ParamValues out = values;
  if (scale == 1.0) return out;
  for (const sim::ParamSpec& spec : specs) {
    if (spec.scaling == sim::Scaling::None || !values.has(spec.name)) continue;
    out.set(spec.name, scaled_value(spec, values.get(spec.name), scale));
  }
  return out;
}

const char* scaling_note(sim::Scaling s) {
  switch (s) {
    case sim::Scaling::None:
      return "";
    case sim::Scaling::Extensive:
      return "x scale";
    case sim::Scaling::Inverse:
      return "/ scale";
  }
  return "";
}

}  // namespace skysim::scenarios
