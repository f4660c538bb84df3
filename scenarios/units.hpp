#pragma once
// Every unit-bearing value of a scenario is parsed here, with one error style: a UnitError
// says what was wrong and what was expected, and the loader prefixes file:line:column and the
// key path. Base units: ns (durations), bytes (sizes), events per second (rates), fractions
// (percentages), unix ns (dates).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/params.hpp"
#include "sim/time.hpp"

namespace skysim::scenarios {

class UnitError : public std::runtime_error {
 public:
  UnitError(std::string message, std::string expected)
      : std::runtime_error(message), expected_(std::move(expected)) {}
  const std::string& expected() const { return expected_; }

 private:
  std::string expected_;
};

// "-3", "1_000", "42". Underscores group digits; overflow is an error.
std::int64_t parse_int(std::string_view text);
// A root seed: "0" .. "18446744073709551615" (2^64 - 1, the RNG's whole seed space), "1_000".
std::uint64_t parse_seed(std::string_view text);
// Non-negative with SI suffix: "15k" = 15000, "2M", "1.5G", "1_000". Must come out whole.
std::int64_t parse_count(std::string_view text);
// Finite real: "0.25", "1e-3", "-2".
double parse_real(std::string_view text);
// sim::parse_duration with the UnitError style.
sim::Duration parse_duration(std::string_view text);
// "32GiB", "64KiB", "1.5MB", "512B", "512" (bytes). KiB/MiB/GiB/TiB are powers of 1024,
// kB/KB/MB/GB/TB powers of 1000.
std::int64_t parse_size(std::string_view text);
// "2.5/s", "20k/s", "100/min", "3/h", "1/d", "0/s" -> per second.
double parse_rate(std::string_view text);
// "99.9%" -> 0.999; a bare number in [0, 1] is taken as a fraction.
double parse_percent(std::string_view text);
bool parse_bool(std::string_view text);
std::int64_t parse_date(std::string_view text);  // ISO-8601 -> unix ns
// A date or an offset from `epoch_unix_ns`: "2026-04-06T17:00:00Z" or "+90m" / "90m".
std::int64_t parse_date_or_offset(std::string_view text, std::int64_t epoch_unix_ns);

// Canonical texts (parse back to the same value).
std::string format_size(std::int64_t bytes);
std::string format_rate(double per_s);
std::string format_real(double v);
std::string format_percent(double fraction);

// A scalar parameter (any type except Distribution) from text; range checks are not done here.
sim::ParamValue parse_scalar_param(const sim::ParamSpec& spec, std::string_view text);
// The value of `v` in the base unit the spec's min/max are expressed in.
double numeric_value(const sim::ParamValue& v);
// "expected ..." text for a spec: "a duration like 15ms", "one of: fifo, lifo".
std::string expected_for(const sim::ParamSpec& spec);
// Renders a bound in the spec's unit ("1ms", "64KiB", "10/s", "50%", "8").
std::string format_bound(const sim::ParamSpec& spec, double v);

}  // namespace skysim::scenarios
