#include "analysis/metastability.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "analysis/csv_header.hpp"

namespace skysim::analysis {

namespace {

std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  while (true) {
    auto comma = line.find(',', from);
    out.push_back(line.substr(from, comma == std::string_view::npos ? comma : comma - from));
    if (comma == std::string_view::npos) {
      return out;
    }
    from = comma + 1;
  }
}

double parse_number(std::string_view cell, const std::string& where) {
  std::string s(cell);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) {
    throw std::invalid_argument(where + ": '" + s + "' is not a number");
  }
  return v;
}

std::int64_t parse_integer(std::string_view cell, const std::string& where) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size()) {
    throw std::invalid_argument(where + ": '" + std::string(cell) + "' is not an integer");
  }
  return v;
}

// "+3d08:00:00" / "+00:04:10": an offset from the epoch people can read next to the scenario.
std::string offset_text(double s) {
  if (!std::isfinite(s)) {
    return "-";
  }
  long long total = std::llround(s);
  long long days = total / 86400, rest = total % 86400;
  char buf[48];
  if (days > 0) {
    std::snprintf(buf, sizeof buf, "+%lldd%02lld:%02lld:%02lld", days, rest / 3600, rest / 60 % 60,
                  rest % 60);
  } else {
    std::snprintf(buf, sizeof buf, "+%02lld:%02lld:%02lld", rest / 3600, rest / 60 % 60, rest % 60);
  }
  return buf;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

TimeSeriesTable TimeSeriesTable::parse_csv(std::string_view text, std::string_view where_) {
  std::string where(where_);
  TimeSeriesTable t;
  std::size_t pos = 0;
  int lineno = 0;
  bool header = true;
  std::size_t time_col = 0;
  std::vector<bool> time_cols;  // per header cell: a time column, not a series
  bool has_time_ns = false;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++lineno;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (line.empty()) {
      continue;
    }
    std::string at = where + ":" + std::to_string(lineno);
    if (header) {
      header = false;
      auto cells = split_csv_header(line);
      auto it = std::find(cells.begin(), cells.end(), "time_s");
      if (it == cells.end()) {
        throw std::invalid_argument(at + ": no time_s column (not a skysim timeseries.csv?)");
      }
      time_col = static_cast<std::size_t>(it - cells.begin());
      has_time_ns = time_col == 1 && cells[0] == "time_ns";
      for (std::size_t i = 0; i < cells.size(); ++i) {
        bool is_time = cells[i] == "time_s" || cells[i] == "time_ns" || cells[i] == "time_utc";
        time_cols.push_back(is_time);
        if (!is_time) t.columns.emplace_back(cells[i]);
      }
      t.values.resize(t.columns.size());
      continue;
    }
    auto cells = split_commas(line);
    if (cells.size() != time_cols.size()) {
      throw std::invalid_argument(at + ": " + std::to_string(cells.size()) + " cells, header has " +
                                  std::to_string(time_cols.size()));
    }
    double time = parse_number(cells[time_col], at);
    if (!t.time_s.empty() && time < t.time_s.back()) {
      throw std::invalid_argument(at + ": time goes backwards");
    }
    t.time_s.push_back(time);
    if (has_time_ns) {
      t.time_ns.push_back(parse_integer(cells[0], at));
    }
    std::size_t c = 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (time_cols[i]) continue;  // time_ns, time_s, time_utc
      t.values[c++].push_back(cells[i].empty() ? std::nullopt
                                               : std::optional<double>(parse_number(cells[i], at)));
    }
  }
  if (header) {
    throw std::invalid_argument(where + ": empty file");
  }
  return t;
}

std::optional<std::size_t> TimeSeriesTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) {
      return i;
    }
  }
  return std::nullopt;
}

void TimeSeriesTable::counters_to_rates(const std::set<std::string>& counter_columns) {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (counter_columns.count(columns[c]) == 0) {
      continue;
    }
    auto& v = values[c];
    std::vector<std::optional<double>> rate(v.size());
    for (std::size_t r = 1; r < v.size(); ++r) {
      double dt = time_s[r] - time_s[r - 1];
      if (v[r] && dt > 0) {
        // A series registered late counted from zero before its first row.
        rate[r] = (*v[r] - v[r - 1].value_or(0.0)) / dt;
      }
    }
    v = std::move(rate);
    columns[c] += ":rate";
  }
}

const char* to_string(Recovery r) {
  switch (r) {
    case Recovery::kUnaffected:
      return "stayed in band";
    case Recovery::kRecovered:
      return "returned to band";
    case Recovery::kStayedDegraded:
      return "STAYED DEGRADED after the trigger was removed";
    case Recovery::kNoBaseline:
      return "no baseline";
  }
  return "?";
}

int MetastabilityReport::count(Recovery r) const {
  return static_cast<int>(
      std::count_if(metrics.begin(), metrics.end(), [r](const auto& m) { return m.status == r; }));
}

MetastabilityReport analyse_metastability(const TimeSeriesTable& table, const Trigger& trigger,
                                          const MetastabilityOptions& options) {
  if (table.time_s.empty()) {
    throw std::invalid_argument("metastability: the time series has no rows");
  }
  if (!(trigger.end_s >= trigger.start_s)) {
    throw std::invalid_argument("metastability: the trigger ends (" + offset_text(trigger.end_s) +
                                ") before it starts (" + offset_text(trigger.start_s) + ")");
  }
  if (trigger.start_s <= table.time_s.front() || trigger.end_s >= table.time_s.back()) {
    throw std::invalid_argument(
        "metastability: the trigger (" + offset_text(trigger.start_s) + " .. " +
        offset_text(trigger.end_s) + ") must lie strictly inside the series (" +
        offset_text(table.time_s.front()) + " .. " + offset_text(table.time_s.back()) + ")");
  }
  if (options.k <= 0 || options.hold < 1 || options.rel_floor < 0 || options.baseline_s < 0) {
    throw std::invalid_argument("metastability: k > 0, hold >= 1, rel_floor >= 0 required");
  }
  MetastabilityReport rep;
  rep.trigger = trigger;
  rep.options = options;
  double horizon = trigger.horizon_s > trigger.end_s ? trigger.horizon_s : table.time_s.back();
  rep.trigger.horizon_s = horizon;
  double warm_up = table.time_s.front() + 0.1 * (trigger.start_s - table.time_s.front());
  double base_from = options.baseline_s > 0         ? trigger.start_s - options.baseline_s
                     : trigger.baseline_from_s >= 0 ? std::max(trigger.baseline_from_s, warm_up)
                                                    : warm_up;
  std::size_t rows = table.time_s.size();
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const std::string& name = table.columns[c];
    if (!options.metrics.empty() &&
        std::none_of(options.metrics.begin(), options.metrics.end(),
                     [&](const std::string& m) { return name.find(m) != std::string::npos; })) {
      continue;
    }
    const auto& v = table.values[c];
    MetricRecovery m;
    m.column = name;
    std::vector<double> base;
    for (std::size_t r = 1; r < rows; ++r) {  // row 0: the first sample is warm-up
      if (table.time_s[r] > base_from && table.time_s[r] < trigger.start_s && v[r]) {
        base.push_back(*v[r]);
      }
    }
    m.baseline_rows = static_cast<int>(base.size());
    if (base.size() < 3) {  // a mean and a spread need a few points
      m.status = Recovery::kNoBaseline;
      rep.metrics.push_back(m);
      continue;
    }
    Eigen::Map<const Eigen::ArrayXd> b(base.data(), static_cast<Eigen::Index>(base.size()));
    m.mean = b.mean();
    m.sd = std::sqrt((b - m.mean).square().sum() / static_cast<double>(base.size() - 1));
    double half = std::max(options.k * m.sd, options.rel_floor * std::fabs(m.mean));
    m.band_low = m.mean - half;
    m.band_high = m.mean + half;
    auto in_band = [&](double x) { return x >= m.band_low && x <= m.band_high; };
    double worst_dist = -1;
    int run = 0;
    std::optional<double> run_start;
    for (std::size_t r = 0; r < rows; ++r) {
      double t = table.time_s[r];
      if (t < trigger.start_s || t > horizon || !v[r]) {
        continue;
      }
      double x = *v[r];
      m.last = x;
      double dist = x < m.band_low ? m.band_low - x : x > m.band_high ? x - m.band_high : 0;
      if (dist > worst_dist) {
        worst_dist = dist;
        m.worst = x;
      }
      if (!in_band(x) && !m.left_at_s) {
        m.left_at_s = t;
      }
      if (t < trigger.end_s || m.returned_at_s) {
        continue;
      }
      if (in_band(x)) {
        if (run++ == 0) {
          run_start = t;
        }
        if (run >= options.hold) {
          m.returned_at_s = run_start;
        }
      } else {
        run = 0;
      }
    }
    if (!m.left_at_s) {
      m.status = Recovery::kUnaffected;
      m.returned_at_s.reset();
    } else {
      m.status = m.returned_at_s ? Recovery::kRecovered : Recovery::kStayedDegraded;
    }
    rep.metrics.push_back(m);
  }
  return rep;
}

Json MetastabilityReport::to_json() const {
  JsonArray ms;
  for (const auto& m : metrics) {
    JsonObject o{{"metric", m.column},
                 {"status", to_string(m.status)},
                 {"stayed_degraded", m.status == Recovery::kStayedDegraded},
                 {"baseline_rows", m.baseline_rows}};
    if (m.status != Recovery::kNoBaseline) {
      o["mean"] = m.mean;
      o["sd"] = m.sd;
      o["band"] = JsonArray{Json(m.band_low), Json(m.band_high)};
      o["worst"] = m.worst;
      o["last"] = m.last;
    }
    o["left_band_at_s"] = m.left_at_s ? Json(*m.left_at_s) : Json();
    o["returned_at_s"] = m.returned_at_s ? Json(*m.returned_at_s) : Json();
    o["recovery_after_trigger_end_s"] =
        m.returned_at_s ? Json(*m.returned_at_s - trigger.end_s) : Json();
    ms.push_back(std::move(o));
  }
  return JsonObject{{"trigger", JsonObject{{"what", trigger.what},
                                           {"start_s", trigger.start_s},
                                           {"end_s", trigger.end_s},
                                           {"horizon_s", trigger.horizon_s},
                                           {"baseline_from_s", trigger.baseline_from_s}}},
                    {"method", JsonObject{{"k", options.k},
                                          {"rel_floor", options.rel_floor},
                                          {"hold_rows", options.hold},
                                          {"baseline_s", options.baseline_s}}},
                    {"counts", JsonObject{{"stayed_in_band", count(Recovery::kUnaffected)},
                                          {"returned", count(Recovery::kRecovered)},
                                          {"stayed_degraded", count(Recovery::kStayedDegraded)},
                                          {"no_baseline", count(Recovery::kNoBaseline)}}},
                    {"metrics", std::move(ms)}};
}

std::string MetastabilityReport::format() const {
  std::ostringstream o;
  o << "trigger      " << trigger.what << ": " << offset_text(trigger.start_s) << " .. "
    << offset_text(trigger.end_s) << " (removed), evaluated to " << offset_text(trigger.horizon_s)
    << "\n";
  o << "band         baseline mean ± max(" << num(options.k) << " sd, "
    << num(100 * options.rel_floor) << " % of mean); returned = " << options.hold
    << " consecutive rows in band\n";
  o << "metrics      " << count(Recovery::kStayedDegraded) << " stayed degraded, "
    << count(Recovery::kRecovered) << " returned, " << count(Recovery::kUnaffected)
    << " stayed in band, " << count(Recovery::kNoBaseline) << " without baseline\n\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-60s %-24s %11s %11s %11s %12s %12s\n", "metric", "status",
                "band low", "band high", "worst", "left band", "returned");
  o << line;
  for (Recovery want : {Recovery::kStayedDegraded, Recovery::kRecovered}) {
    for (const auto& m : metrics) {
      if (m.status != want) {
        continue;
      }
      std::string key = m.column.size() > 60 ? m.column.substr(0, 57) + "..." : m.column;
      std::string status = want == Recovery::kStayedDegraded ? "STAYED DEGRADED" : "returned";
      std::string returned =
          m.returned_at_s ? offset_text(*m.returned_at_s) + " (" +
                                offset_text(*m.returned_at_s - trigger.end_s).substr(1) + " after)"
                          : "never";
      std::snprintf(line, sizeof line, "%-60s %-24s %11s %11s %11s %12s %s\n", key.c_str(),
                    status.c_str(), num(m.band_low).c_str(), num(m.band_high).c_str(),
                    num(m.worst).c_str(), offset_text(m.left_at_s.value_or(NAN)).c_str(),
                    returned.c_str());
      o << line;
    }
  }
  if (count(Recovery::kStayedDegraded) > 0) {
    o << "\nFLAG: " << count(Recovery::kStayedDegraded)
      << " metric(s) stayed degraded after the trigger was removed (possible metastable "
         "failure)\n";
  }
  return o.str();
}

std::set<std::string> counter_columns(const Json& summary) {
  std::set<std::string> out;
  for (const auto& [key, series] : summary.at("metrics").as_object("summary.metrics")) {
    if (series.is_object()) {
      if (auto type = series.find("type");
          type && type->is_string() && type->as_string() == "counter") {
        out.insert(key);
      }
    }
  }
  return out;
}

}  // namespace skysim::analysis
