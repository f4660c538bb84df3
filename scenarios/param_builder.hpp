#pragma once
// One-line parameter declarations for service kinds:
//   param("workers", ParamType::Count, "", "8", "concurrent workers (assumption)", 1, 1e6)
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/params.hpp"

namespace skysim::scenarios {

inline sim::ParamSpec param(std::string name, sim::ParamType t, std::string unit, std::string def,
                            std::string doc, std::optional<double> min = std::nullopt,
                            std::optional<double> max = std::nullopt,
                            std::vector<std::string> choices = {}) {
  sim::ParamSpec s;
  s.name = std::move(name);
  s.type = t;
  s.unit = std::move(unit);
  s.default_text = std::move(def);
  s.doc = std::move(doc);
  s.min = min;
  s.max = max;
  s.choices = std::move(choices);
  return s;
}

// A parameter a timeline `set:` (or a fault) may change mid-run.
inline sim::ParamSpec settable(sim::ParamSpec s) {
  s.settable = true;
  return s;
}

// An amount of the host that `scale` shrinks with it (cores, memory, a pool, a key space):
// the model sees value × scale (scenarios/param_scaling.hpp).
inline sim::ParamSpec extensive(sim::ParamSpec s) {
  s.scaling = sim::Scaling::Extensive;
  return s;
}

// A cost per unit of an extensive amount, so that the shrunken amount costs what the whole one
// does (a port search's time per port): the model sees value / scale.
inline sim::ParamSpec per_scaled_unit(sim::ParamSpec s) {
  s.scaling = sim::Scaling::Inverse;
  return s;
}

// A String parameter that lists clients of the scenario's sources (checked by the loader).
inline sim::ParamSpec naming_clients(sim::ParamSpec s) {
  s.names_clients = true;
  return s;
}

// Whether the comma-separated `csv` (a naming_clients value) lists `name`.
inline bool lists_client(const std::string& csv, const std::string& name) {
  std::size_t start = 0;
  while (start < csv.size()) {
    const std::size_t comma = csv.find(',', start);
    const std::size_t end = comma == std::string::npos ? csv.size() : comma;
    if (csv.compare(start, end - start, name) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace skysim::scenarios
