#pragma once
// Distributions by name, as written in a scenario:
//   {constant: 5ms}   {uniform: [1, 50]}   {exponential: {mean: 2ms}}
//   {lognormal: {median: 600us, p99: 15ms}}   {lognormal: {mu: 13.3, sigma: 1.4}}
//   {pareto: {scale: 1KiB, shape: 1.5}}   {empirical: [1ms, 2ms, 2ms, 40ms]}
// Values carry the unit of the quantity they describe (a duration, a size, a count) and are
// kept in base units (ns, bytes). Sampling uses the Boost.Random distributions of sim::Rng.
#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/params.hpp"

namespace skysim::scenarios {

// Builds a distribution from its YAML node. Throws UnitError (scenarios/units.hpp) on a bad
// name, a missing/extra parameter or a value in the wrong unit.
sim::DistributionPtr parse_distribution(const YAML::Node& node, sim::Quantity quantity);
// Parses a flow-style text ("{exponential: {mean: 2ms}}"); used for ParamSpec defaults.
sim::DistributionPtr parse_distribution_text(const std::string& text, sim::Quantity quantity);

sim::Quantity quantity_of_unit(const std::string& unit);  // "duration", "size", else Number

// z of the standard normal's 99th percentile: lognormal {median, p99} -> sigma = ln(p99/m)/z.
inline constexpr double kZ99 = 2.3263478740408408;

}  // namespace skysim::scenarios
