#include "scenarios/yaml_checker.hpp"

#include "scenarios/distributions.hpp"
#include "sim/edit_distance.hpp"

namespace skysim::scenarios::yamlcheck {

bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string one_of(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "nothing (none declared)" : "one of: " + s;
}

std::string suggestion(const std::string& got, const std::vector<std::string>& names) {
  std::string best;
  std::size_t best_d = 3;
  for (const auto& n : names) {
    std::size_t d = sim::edit_distance(got, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string printable(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 60)) {
    auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u >= 0x7f) ? '?' : c;
  }
  return s.size() > 60 ? out + "..." : out;
}


std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '.') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// Parses one model parameter (scalar or distribution) and checks its range.
std::optional<sim::ParamValue> parse_param(Checker& c, const sim::ParamSpec& spec,
                                           const YAML::Node& n, const std::string& path) {
  sim::ParamValue v;
  try {
    if (spec.type == sim::ParamType::Distribution) {
      v.type = spec.type;
      v.distribution = parse_distribution(n, quantity_of_unit(spec.unit));
      v.text = v.distribution->to_yaml();
    } else {
      if (!n.IsScalar()) {
        c.error(n, path, "must be a single value", expected_for(spec));
        return std::nullopt;
      }
      v = parse_scalar_param(spec, n.Scalar());
    }
  } catch (const UnitError& e) {
    c.error(n, path, e.what(), e.expected());
    return std::nullopt;
  }
  double x = numeric_value(v);
  const char* what = spec.type == sim::ParamType::Distribution ? "mean " : "";
  if (spec.min && !(x >= *spec.min)) {
    c.error(n, path, std::string(what) + v.text + " is below the minimum",
            ">= " + format_bound(spec, *spec.min));
    return std::nullopt;
  }
  if (spec.max && !(x <= *spec.max)) {
    c.error(n, path, std::string(what) + v.text + " is above the maximum",
            "<= " + format_bound(spec, *spec.max));
    return std::nullopt;
  }
  return v;
}

}  // namespace skysim::scenarios::yamlcheck
