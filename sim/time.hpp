#pragma once
// Simulated time: int64 nanoseconds since the scenario's epoch. Integer time keeps event
// order exact and identical on every machine; a double would round differently after days.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sim {

using Time = std::int64_t;      // ns since the scenario epoch
using Duration = std::int64_t;  // ns

inline constexpr Duration kNanosecond = 1;
inline constexpr Duration kMicrosecond = 1'000;
inline constexpr Duration kMillisecond = 1'000'000;
inline constexpr Duration kSecond = 1'000'000'000;
inline constexpr Duration kMinute = 60 * kSecond;
inline constexpr Duration kHour = 60 * kMinute;
inline constexpr Duration kDay = 24 * kHour;
inline constexpr Time kTimeMax = INT64_MAX;

// One error type for every malformed time or date, with a message a user can act on.
class TimeParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "600us", "15ms", "1.5s", "30m", "4d", "1h30m". Units: ns us µs ms s m min h d w.
// Rejects spaces, signs, missing units and overflow; "0" alone is accepted as zero.
Duration parse_duration(std::string_view text);

// Shortest exact rendering with the largest fitting units: 90s -> "1m30s", 1500us -> "1.5ms".
std::string format_duration(Duration d);

// Unix-epoch nanoseconds of an ISO-8601 UTC date: "2026-04-06", "2026-04-06T17:00:00Z",
// "2026-04-06T17:00:00.250Z", "2026-04-06 17:00:00+02:00".
std::int64_t parse_iso8601_unix_ns(std::string_view text);

// "2026-04-06T17:00:00Z" (fractional seconds only when non-zero).
std::string format_iso8601(std::int64_t unix_ns);

inline constexpr double to_seconds(Duration d) { return static_cast<double>(d) / 1e9; }
inline constexpr Duration from_seconds(double s) { return static_cast<Duration>(s * 1e9); }

}  // namespace sim
