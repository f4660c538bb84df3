#include "scenarios/units.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace skysim::scenarios {
namespace {

std::string quoted(std::string_view t) {
  std::string s = "'";
  for (char c : t.substr(0, 60)) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      s += buf;
    } else {
      s += c;
    }
  }
  if (t.size() > 60) s += "...";
  return s + "'";
}

// Splits "1.5GiB" into the number 1.5 and the suffix "GiB". Underscores may group digits.
struct Split {
  double value = 0;
  bool integral = true;  // no '.', no exponent
  std::string digits;    // the number without underscores
  std::string_view suffix;
};

bool split_number(std::string_view t, Split& out, bool allow_sign) {
  std::size_t i = 0;
  std::string num;
  if (allow_sign && i < t.size() && t[i] == '-') {
    num += '-';
    ++i;
  }
  bool any_digit = false;
  char prev = 0;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (c >= '0' && c <= '9') {
      num += c;
      any_digit = true;
    } else if (c == '_' && prev >= '0' && prev <= '9' && i + 1 < t.size() && t[i + 1] >= '0' &&
               t[i + 1] <= '9') {
      // digit grouping
    } else if (c == '.') {
      num += c;
      out.integral = false;
    } else if ((c == 'e' || c == 'E') && any_digit && i + 1 < t.size() &&
               ((t[i + 1] >= '0' && t[i + 1] <= '9') ||
                ((t[i + 1] == '-' || t[i + 1] == '+') && i + 2 < t.size() && t[i + 2] >= '0' &&
                 t[i + 2] <= '9'))) {
      num += c;
      num += t[++i];
      out.integral = false;
    } else {
      break;
    }
    prev = c;
  }
  if (!any_digit) return false;
  double v = 0;
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (ec != std::errc() || p != num.data() + num.size() || !std::isfinite(v)) return false;
  out.value = v;
  out.digits = num;
  out.suffix = t.substr(i);
  return true;
}

double si_multiplier(std::string_view s, bool& ok) {
  ok = true;
  if (s.empty()) return 1;
  if (s == "k" || s == "K") return 1e3;
  if (s == "M") return 1e6;
  if (s == "G" || s == "B") return 1e9;  // "B" for billion would clash with bytes: G only
  ok = false;
  return 0;
}

constexpr double kInt64Limit = 9.2e18;

std::int64_t to_whole(double v, std::string_view text, const char* expected) {
  if (std::fabs(v) >= kInt64Limit) throw UnitError(quoted(text) + " is too large", expected);
  double r = std::round(v);
  if (std::fabs(r - v) > 1e-9 * std::max(1.0, std::fabs(v))) {
    throw UnitError(quoted(text) + " is not a whole number", expected);
  }
  return static_cast<std::int64_t>(r);
}

}  // namespace

namespace {

// Plain digits (underscores allowed) into an integer type; overflow is an error, not a wrap.
template <class Int>
Int parse_integer(std::string_view text, const char* exp) {
  Split s;
  if (!split_number(text, s, true) || !s.suffix.empty() || !s.integral) {
    throw UnitError("not an integer: " + quoted(text), exp);
  }
  Int v = 0;
  auto [p, ec] = std::from_chars(s.digits.data(), s.digits.data() + s.digits.size(), v);
  if (ec == std::errc::result_out_of_range) throw UnitError(quoted(text) + " is too large", exp);
  if (ec != std::errc() || p != s.digits.data() + s.digits.size()) {
    throw UnitError("not an integer: " + quoted(text), exp);
  }
  return v;
}

}  // namespace

std::int64_t parse_int(std::string_view text) {
  return parse_integer<std::int64_t>(text, "an integer like 42 or -3");
}

std::uint64_t parse_seed(std::string_view text) {
  const char* exp = "an integer from 0 to 18446744073709551615";
  if (!text.empty() && text[0] == '-') {
    throw UnitError("a seed cannot be negative: " + quoted(text), exp);
  }
  return parse_integer<std::uint64_t>(text, exp);
}

std::int64_t parse_count(std::string_view text) {
  const char* exp = "a count like 15k, 2M or 1_000";
  if (!text.empty() && text[0] == '-') throw UnitError("negative count " + quoted(text), exp);
  Split s;
  if (!split_number(text, s, false)) throw UnitError("not a count: " + quoted(text), exp);
  bool ok = false;
  double m = s.suffix == "B" ? 0 : si_multiplier(s.suffix, ok);
  if (!ok) throw UnitError("unknown count suffix in " + quoted(text), exp);
  if (s.integral && m == 1) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.digits.data(), s.digits.data() + s.digits.size(), v);
    if (ec == std::errc::result_out_of_range) {
      throw UnitError(quoted(text) + " is too large", exp);
    }
    if (ec == std::errc() && p == s.digits.data() + s.digits.size()) return v;
  }
  return to_whole(s.value * m, text, exp);
}

double parse_real(std::string_view text) {
  Split s;
  if (!split_number(text, s, true) || !s.suffix.empty()) {
    throw UnitError("not a number: " + quoted(text), "a number like 0.25 or 1e-3");
  }
  return s.value;
}

sim::Duration parse_duration(std::string_view text) {
  try {
    return sim::parse_duration(text);
  } catch (const sim::TimeParseError& e) {
    // The kernel's message ends with its own "(expected ...)": say it once, in UnitError's way.
    std::string why = e.what();
    if (auto at = why.rfind(" (expected"); at != std::string::npos) why.erase(at);
    throw UnitError(why, "a duration like 600us, 15ms, 1.5s, 30m, 4d");
  }
}

std::int64_t parse_size(std::string_view text) {
  const char* exp = "a size like 512B, 64KiB, 1.5MB or 32GiB";
  if (!text.empty() && text[0] == '-') throw UnitError("negative size " + quoted(text), exp);
  Split s;
  if (!split_number(text, s, false)) throw UnitError("not a size: " + quoted(text), exp);
  struct U {
    const char* name;
    double mult;
  };
  static constexpr U units[] = {{"", 1},
                                {"B", 1},
                                {"KiB", 1024.0},
                                {"MiB", 1048576.0},
                                {"GiB", 1073741824.0},
                                {"TiB", 1099511627776.0},
                                {"kB", 1e3},
                                {"KB", 1e3},
                                {"MB", 1e6},
                                {"GB", 1e9},
                                {"TB", 1e12}};
  for (const U& u : units) {
    if (s.suffix == u.name) return to_whole(s.value * u.mult, text, exp);
  }
  throw UnitError("unknown size unit in " + quoted(text), exp);
}

double parse_rate(std::string_view text) {
  const char* exp = "a rate like 2.5/s, 20k/s, 100/min or 3/h";
  if (!text.empty() && text[0] == '-') throw UnitError("negative rate " + quoted(text), exp);
  auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    throw UnitError("rate " + quoted(text) + " has no time unit", exp);
  }
  std::string_view count = text.substr(0, slash);
  std::string_view per = text.substr(slash + 1);
  Split s;
  if (!split_number(count, s, false)) throw UnitError("not a rate: " + quoted(text), exp);
  bool ok = false;
  double m = si_multiplier(s.suffix, ok);
  if (!ok || s.suffix == "B") throw UnitError("unknown rate prefix in " + quoted(text), exp);
  double seconds = 0;
  if (per == "s" || per == "sec") {
    seconds = 1;
  } else if (per == "ms") {
    seconds = 1e-3;
  } else if (per == "m" || per == "min") {
    seconds = 60;
  } else if (per == "h") {
    seconds = 3600;
  } else if (per == "d") {
    seconds = 86400;
  } else {
    throw UnitError("unknown rate unit in " + quoted(text), exp);
  }
  double r = s.value * m / seconds;
  if (!std::isfinite(r) || r > 1e12) throw UnitError("rate " + quoted(text) + " is too large", exp);
  return r;
}

double parse_percent(std::string_view text) {
  const char* exp = "a percentage like 99.9% or a fraction in [0, 1]";
  if (!text.empty() && text[0] == '-') throw UnitError("negative percentage " + quoted(text), exp);
  Split s;
  if (!split_number(text, s, false)) throw UnitError("not a percentage: " + quoted(text), exp);
  double f = 0;
  if (s.suffix == "%") {
    f = s.value / 100.0;
  } else if (s.suffix.empty()) {
    f = s.value;
  } else {
    throw UnitError("not a percentage: " + quoted(text), exp);
  }
  if (f > 1.0) throw UnitError("percentage " + quoted(text) + " is above 100%", exp);
  return f;
}

bool parse_bool(std::string_view t) {
  if (t == "true" || t == "yes" || t == "on" || t == "True" || t == "TRUE") return true;
  if (t == "false" || t == "no" || t == "off" || t == "False" || t == "FALSE") return false;
  throw UnitError("not a boolean: " + quoted(t), "true or false");
}

// Simulated time is int64 ns, which spans 1677..2262; scenario dates stay well inside so that
// epoch + duration (up to ten years) cannot overflow. Checked before the kernel's parser sees
// the text (the fuzzer found that year 4052 overflowed inside it).
static void check_year(std::string_view text) {
  if (text.size() < 4) return;  // the date parser reports the malformed text
  int year = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    if (text[i] < '0' || text[i] > '9') return;
    year = year * 10 + (text[i] - '0');
  }
  if (year < 1900 || year > 2200) {
    throw UnitError("date " + quoted(text) + " is out of range",
                    "a date between the years 1900 and 2200");
  }
}

std::int64_t parse_date(std::string_view text) {
  check_year(text);
  try {
    return sim::parse_iso8601_unix_ns(text);
  } catch (const sim::TimeParseError& e) {
    throw UnitError(e.what(), "an ISO-8601 date like 2026-04-06T17:00:00Z");
  } catch (const std::exception& e) {
    throw UnitError(std::string("bad date: ") + e.what(), "an ISO-8601 date like 2026-04-06");
  }
}

std::int64_t parse_date_or_offset(std::string_view text, std::int64_t epoch_unix_ns) {
  if (!text.empty() && (text[0] == '+' || (text.find('-') == std::string_view::npos &&
                                           text.find(':') == std::string_view::npos))) {
    std::string_view d = text[0] == '+' ? text.substr(1) : text;
    sim::Duration off = 0;
    try {
      off = sim::parse_duration(d);
    } catch (const sim::TimeParseError& e) {
      throw UnitError(e.what(), "an ISO-8601 date or an offset from the epoch like +90m");
    }
    if (off > INT64_MAX - epoch_unix_ns) throw UnitError("offset is too large", "a smaller offset");
    return epoch_unix_ns + off;
  }
  check_year(text);
  try {
    return sim::parse_iso8601_unix_ns(text);
  } catch (const std::exception& e) {
    throw UnitError(e.what(), "an ISO-8601 date like 2026-04-06T17:00:00Z or an offset like +90m");
  }
}

std::string format_real(double v) {
  // The shortest text that reads back to the same double, fixed or scientific whichever is
  // shorter (fixed on a tie): 50 prints "50", not "5e+01" as "%.1g" did.
  char buf[64];  // to_chars cannot fail here: the longest double text is 24 characters
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

std::string format_size(std::int64_t bytes) {
  static constexpr std::pair<const char*, std::int64_t> units[] = {
      {"TiB", 1099511627776LL}, {"GiB", 1073741824LL}, {"MiB", 1048576LL}, {"KiB", 1024LL}};
  for (auto [name, m] : units) {
    if (bytes != 0 && bytes % m == 0) return std::to_string(bytes / m) + name;
  }
  return std::to_string(bytes) + "B";
}

std::string format_rate(double per_s) { return format_real(per_s) + "/s"; }

std::string format_percent(double fraction) { return format_real(fraction * 100.0) + "%"; }

sim::ParamValue parse_scalar_param(const sim::ParamSpec& spec, std::string_view text) {
  sim::ParamValue v;
  v.type = spec.type;
  switch (spec.type) {
    case sim::ParamType::Int:
      v.integer = parse_int(text);
      v.number = static_cast<double>(v.integer);
      v.text = std::to_string(v.integer);
      break;
    case sim::ParamType::Count:
      v.integer = parse_count(text);
      v.number = static_cast<double>(v.integer);
      v.text = std::to_string(v.integer);
      break;
    case sim::ParamType::Double:
      v.number = parse_real(text);
      v.text = format_real(v.number);
      break;
    case sim::ParamType::Duration:
      v.integer = parse_duration(text);
      v.number = static_cast<double>(v.integer);
      v.text = sim::format_duration(v.integer);
      break;
    case sim::ParamType::Size:
      v.integer = parse_size(text);
      v.number = static_cast<double>(v.integer);
      v.text = format_size(v.integer);
      break;
    case sim::ParamType::Rate:
      v.number = parse_rate(text);
      v.text = format_rate(v.number);
      break;
    case sim::ParamType::Percent:
      v.number = parse_percent(text);
      v.text = format_percent(v.number);
      break;
    case sim::ParamType::Bool:
      v.integer = parse_bool(text) ? 1 : 0;
      v.number = static_cast<double>(v.integer);
      v.text = v.integer ? "true" : "false";
      break;
    case sim::ParamType::String:
      v.text = std::string(text);
      break;
    case sim::ParamType::Enum: {
      for (const auto& c : spec.choices) {
        if (c == text) {
          v.text = c;
          return v;
        }
      }
      throw UnitError("unknown choice " + quoted(text), expected_for(spec));
    }
    case sim::ParamType::Date:
      v.integer = parse_date(text);
      v.number = static_cast<double>(v.integer);
      v.text = sim::format_iso8601(v.integer);
      break;
    case sim::ParamType::Distribution:
      throw UnitError("a distribution cannot be a plain scalar", expected_for(spec));
  }
  return v;
}

double numeric_value(const sim::ParamValue& v) {
  if (v.type == sim::ParamType::Distribution) return v.distribution ? v.distribution->mean() : 0;
  return v.number;
}

std::string expected_for(const sim::ParamSpec& spec) {
  switch (spec.type) {
    case sim::ParamType::Int:
      return "an integer like 42";
    case sim::ParamType::Count:
      return "a count like 15k, 2M or 1_000";
    case sim::ParamType::Double:
      return "a number like 0.25";
    case sim::ParamType::Duration:
      return "a duration like 600us, 15ms, 1.5s, 30m";
    case sim::ParamType::Size:
      return "a size like 64KiB, 1.5MB or 32GiB";
    case sim::ParamType::Rate:
      return "a rate like 2.5/s, 20k/s or 100/min";
    case sim::ParamType::Percent:
      return "a percentage like 99.9%";
    case sim::ParamType::Bool:
      return "true or false";
    case sim::ParamType::String:
      return "a string";
    case sim::ParamType::Date:
      return "an ISO-8601 date like 2026-04-06T17:00:00Z";
    case sim::ParamType::Distribution:
      return "a " + (spec.unit.empty() ? std::string("count") : spec.unit) +
             " distribution like {exponential: {mean: 2ms}}";
    case sim::ParamType::Enum: {
      std::string s = "one of: ";
      for (std::size_t i = 0; i < spec.choices.size(); ++i) {
        s += (i ? ", " : "") + spec.choices[i];
      }
      return s;
    }
  }
  return "?";
}

std::string format_bound(const sim::ParamSpec& spec, double v) {
  switch (spec.type) {
    case sim::ParamType::Duration:
      return sim::format_duration(static_cast<sim::Duration>(v));
    case sim::ParamType::Size:
      return format_size(static_cast<std::int64_t>(v));
    case sim::ParamType::Rate:
      return format_rate(v);
    case sim::ParamType::Percent:
      return format_percent(v);
    case sim::ParamType::Distribution:
      if (spec.unit == "duration") return sim::format_duration(static_cast<sim::Duration>(v));
      if (spec.unit == "size") return format_size(static_cast<std::int64_t>(v));
      return format_real(v);
    case sim::ParamType::Int:
    case sim::ParamType::Count:
      if (std::fabs(v) < 9e18) return std::to_string(std::llround(v));
      return format_real(v);
    default:
      return format_real(v);
  }
}

}  // namespace skysim::scenarios
