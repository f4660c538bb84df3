#include "sim/time.hpp"

#include <array>
#include <cstdio>
#include <limits>

namespace sim {
namespace {

struct Unit {
  std::string_view name;
  Duration ns;
};

constexpr std::array<Unit, 12> kUnits{{{"ns", kNanosecond},
                                       {"us", kMicrosecond},
                                       {"\xC2\xB5s", kMicrosecond},
                                       {"ms", kMillisecond},
                                       {"s", kSecond},
                                       {"sec", kSecond},
                                       {"m", kMinute},
                                       {"min", kMinute},
                                       {"h", kHour},
                                       {"d", kDay},
                                       {"w", 7 * kDay},
                                       {"day", kDay}}};

[[noreturn]] void fail(std::string_view text, std::string_view why) {
  throw TimeParseError("invalid duration '" + std::string(text) + "': " + std::string(why) +
                       " (expected e.g. 600us, 15ms, 1.5s, 30m, 4d)");
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Duration parse_duration(std::string_view text) {
  if (text.empty()) fail(text, "empty");
  if (text == "0") return 0;
  if (text.find_first_of(" \t\n") != std::string_view::npos) fail(text, "no spaces allowed");
  if (text[0] == '-' || text[0] == '+') fail(text, "durations cannot be signed");
  Duration total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '-' || text[i] == '+') fail(text, "durations cannot be signed");
    if (text[i] == ' ' || text[i] == '\t') fail(text, "no spaces allowed");
    if (!is_digit(text[i])) fail(text, "expected a number");
    // Integer and fractional parts kept as integers so "0.1s" is exactly 100ms.
    std::int64_t whole = 0;
    while (i < text.size() && is_digit(text[i])) {
      if (whole > (std::numeric_limits<std::int64_t>::max() - 9) / 10) fail(text, "too large");
      whole = whole * 10 + (text[i] - '0');
      ++i;
    }
    std::int64_t frac = 0, frac_scale = 1;
    if (i < text.size() && text[i] == '.') {
      ++i;
      if (i >= text.size() || !is_digit(text[i])) fail(text, "expected digits after '.'");
      while (i < text.size() && is_digit(text[i])) {
        if (frac_scale < 1'000'000'000'000LL) {
          frac = frac * 10 + (text[i] - '0');
          frac_scale *= 10;
        }
        ++i;
      }
    }
    std::size_t u = i;
    while (u < text.size() && !is_digit(text[u]) && text[u] != '.') ++u;
    std::string_view unit = text.substr(i, u - i);
    if (unit.empty()) fail(text, "missing unit");
    const Unit* found = nullptr;
    for (const Unit& candidate : kUnits) {
      if (candidate.name == unit) found = &candidate;
    }
    if (found == nullptr) fail(text, "unknown unit '" + std::string(unit) + "'");
    if (whole > std::numeric_limits<Duration>::max() / found->ns) fail(text, "too large");
    Duration part = whole * found->ns;
    // frac/frac_scale of the unit, rounded down to whole nanoseconds.
    __int128 frac_ns = static_cast<__int128>(frac) * found->ns / frac_scale;
    if (frac_scale > 1 && frac_ns * frac_scale != static_cast<__int128>(frac) * found->ns) {
      fail(text, "finer than one nanosecond");
    }
    part += static_cast<Duration>(frac_ns);
    if (total > std::numeric_limits<Duration>::max() - part) fail(text, "too large");
    total += part;
    i = u;
  }
  return total;
}

std::string format_duration(Duration d) {
  if (d == 0) return "0s";
  std::string out;
  if (d < 0) {
    out = "-";
    d = -d;
  }
  if (d >= kMinute) {
    static constexpr std::array<Unit, 4> big{{{"d", kDay}, {"h", kHour}, {"m", kMinute}, {"s", kSecond}}};
    for (const Unit& u : big) {
      if (d >= u.ns) {
        Duration n = d / u.ns;
        d -= n * u.ns;
        if (u.ns == kSecond && d > 0) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%lld.%09lld", static_cast<long long>(n),
                        static_cast<long long>(d));
          std::string s(buf);
          while (s.back() == '0') s.pop_back();
          return out + s + "s";
        }
        out += std::to_string(n) + std::string(u.name);
      }
    }
    if (d > 0) out += format_duration(d);
    return out;
  }
  static constexpr std::array<Unit, 4> small{{{"s", kSecond}, {"ms", kMillisecond}, {"us", kMicrosecond}, {"ns", 1}}};
  for (const Unit& u : small) {
    if (d >= u.ns) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(d / u.ns));
      std::string s(buf);
      Duration rest = d % u.ns;
      if (rest != 0) {
        std::string frac = std::to_string(rest);
        int width = 0;
        for (Duration x = u.ns; x > 1; x /= 10) ++width;
        frac = std::string(static_cast<std::size_t>(width) - frac.size(), '0') + frac;
        while (frac.back() == '0') frac.pop_back();
        s += "." + frac;
      }
      return out + s + std::string(u.name);
    }
  }
  return out;
}

namespace {

// Howard Hinnant's days-from-civil algorithm (public-domain arithmetic).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

[[noreturn]] void fail_date(std::string_view text, std::string_view why) {
  throw TimeParseError("invalid date '" + std::string(text) + "': " + std::string(why) +
                       " (expected ISO-8601 like 2026-04-06T17:00:00Z)");
}

int digits(std::string_view text, std::size_t& i, int n, std::string_view what) {
  int v = 0;
  for (int k = 0; k < n; ++k, ++i) {
    if (i >= text.size() || !is_digit(text[i])) fail_date(text, "expected " + std::string(what));
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

void expect(std::string_view text, std::size_t& i, char c) {
  if (i >= text.size() || text[i] != c) fail_date(text, std::string("expected '") + c + "'");
  ++i;
}

}  // namespace

std::int64_t parse_iso8601_unix_ns(std::string_view text) {
  std::size_t i = 0;
  int year = digits(text, i, 4, "a 4-digit year");
  expect(text, i, '-');
  int month = digits(text, i, 2, "a 2-digit month");
  expect(text, i, '-');
  int day = digits(text, i, 2, "a 2-digit day");
  // int64 nanoseconds since 1970 span 1677..2262; keep well inside it.
  if (year < 1900 || year > 2200) fail_date(text, "year out of range (1900-2200)");
  if (month < 1 || month > 12) fail_date(text, "month out of range");
  static constexpr int kDaysIn[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (day < 1 || day > kDaysIn[month - 1] || (month == 2 && day == 29 && !leap)) {
    fail_date(text, "day out of range");
  }
  std::int64_t ns = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * kDay;
  if (i == text.size()) return ns;
  if (text[i] != 'T' && text[i] != ' ') fail_date(text, "expected 'T' after the date");
  ++i;
  int hh = digits(text, i, 2, "hours");
  expect(text, i, ':');
  int mm = digits(text, i, 2, "minutes");
  int ss = 0;
  if (i < text.size() && text[i] == ':') {
    ++i;
    ss = digits(text, i, 2, "seconds");
  }
  if (hh > 23 || mm > 59 || ss > 60) fail_date(text, "time of day out of range");
  ns += hh * kHour + mm * kMinute + ss * kSecond;
  if (i < text.size() && text[i] == '.') {
    ++i;
    std::int64_t scale = kSecond;
    bool any = false;
    while (i < text.size() && is_digit(text[i])) {
      scale /= 10;
      ns += (text[i] - '0') * scale;
      any = true;
      ++i;
    }
    if (!any) fail_date(text, "expected digits after '.'");
  }
  if (i == text.size()) fail_date(text, "missing time zone (use Z for UTC)");
  if (text[i] == 'Z' || text[i] == 'z') {
    ++i;
  } else if (text[i] == '+' || text[i] == '-') {
    int sign = text[i] == '+' ? 1 : -1;
    ++i;
    int oh = digits(text, i, 2, "offset hours");
    if (i < text.size() && text[i] == ':') ++i;
    int om = digits(text, i, 2, "offset minutes");
    ns -= sign * (oh * kHour + om * kMinute);
  } else {
    fail_date(text, "expected Z or an offset like +02:00");
  }
  if (i != text.size()) fail_date(text, "trailing characters");
  return ns;
}

std::string format_iso8601(std::int64_t unix_ns) {
  std::int64_t days = unix_ns / kDay;
  std::int64_t rem = unix_ns % kDay;
  if (rem < 0) {
    rem += kDay;
    --days;
  }
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  const int hh = static_cast<int>(rem / kHour);
  const int mi = static_cast<int>(rem % kHour / kMinute);
  const int ss = static_cast<int>(rem % kMinute / kSecond);
  const std::int64_t frac = rem % kSecond;
  char buf[64];
  if (frac == 0) {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02dZ", static_cast<long long>(y), m,
                  d, hh, mi, ss);
  } else {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d.%09lldZ",
                  static_cast<long long>(y), m, d, hh, mi, ss, static_cast<long long>(frac));
  }
  return buf;
}

}  // namespace sim
