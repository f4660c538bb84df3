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
  const double factor = spec.scaling == sim::Scaling::Extensive ? scale : 1.0 / scale;
  if (integral(v.type)) {
    if (v.integer == 0) return v;
    const double x = static_cast<double>(v.integer) * factor;
    // Saturate rather than overflow: an Inverse duration at a tiny scale.
    std::int64_t n = x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : std::llround(x);
    if (spec.scaling == sim::Scaling::Extensive && v.integer > 0) n = std::max<std::int64_t>(1, n);
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
