#include "analysis/run_panels.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace skysim::analysis {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Matched {
  std::size_t col;
  std::size_t series;  // index into panel.series
  Labels labels;
};

double cell(const TimeSeries& ts, std::size_t row, std::size_t col) { return ts.rows[row][col]; }

// Per-interval difference of a cumulative column; NaN on the first row and where the count
// went down (a restarted process starts its counts again: that interval has no honest value).
double delta(const TimeSeries& ts, std::size_t row, std::size_t col) {
  if (row == 0) return std::nan("");
  double d = cell(ts, row, col) - cell(ts, row - 1, col);
  return d >= 0 ? d : std::nan("");
}

// Label values that tell the lines apart: keys with the same value on every line say nothing,
// and a value contained in another of the same line ("east" in "east/dataplane/0") is said
// already.
std::vector<std::string> distinguishing_labels(const std::vector<Matched>& lines) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& m : lines) {
    for (const auto& [k, v] : m.labels) values[k].insert(v);
  }
  std::vector<std::string> out;
  for (const auto& m : lines) {
    std::vector<std::string> kept;
    for (const auto& [k, v] : m.labels) {
      if (values[k].size() > 1 || lines.size() == 1) kept.push_back(v);
    }
    std::string text;
    for (const auto& v : kept) {
      bool inside = std::any_of(kept.begin(), kept.end(), [&v](const std::string& o) {
        return o != v && o.find(v) != std::string::npos;
      });
      if (!inside) text += (text.empty() ? "" : " ") + v;
    }
    out.push_back(text);
  }
  return out;
}

}  // namespace

std::size_t PanelLine::points() const {
  return static_cast<std::size_t>(
      std::count_if(value.begin(), value.end(), [](double v) { return std::isfinite(v); }));
}

ColumnName parse_column(const std::string& column) {
  ColumnName c;
  auto open = column.find('{');
  auto close = open == std::string::npos ? std::string::npos : column.find('}', open);
  if (close == std::string::npos) {
    c.metric = column;
    return c;
  }
  c.metric = column.substr(0, open) + column.substr(close + 1);
  std::string inside = column.substr(open + 1, close - open - 1);
  std::size_t start = 0;
  while (start <= inside.size() && !inside.empty()) {
    auto end = inside.find_first_of(",;", start);  // ';' in files before the quoted header
    if (end == std::string::npos) end = inside.size();
    std::string kv = inside.substr(start, end - start);
    auto eq = kv.find('=');
    c.labels.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
    start = end + 1;
  }
  return c;
}

PanelData panel_data(const TimeSeries& ts, const std::string& kind,
                     const sim::ReportPanel& panel) {
  PanelData out{kind, panel, {}};
  const auto tcol = static_cast<std::size_t>(ts.time_column());
  // The columns of every declared series; for a share, the second series pairs by labels.
  std::vector<Matched> lines;
  std::map<Labels, std::size_t> second;
  for (std::size_t col = 0; col < ts.columns.size(); ++col) {
    if (col == tcol) continue;
    ColumnName name = parse_column(ts.columns[col]);
    for (std::size_t si = 0; si < panel.series.size(); ++si) {
      if (name.metric != panel.series[si]) continue;
      if (panel.how == sim::PanelHow::kSharePercent && si == 1) {
        second[name.labels] = col;
      } else if (panel.how != sim::PanelHow::kSharePercent || si == 0) {
        lines.push_back({col, si, name.labels});
      }
    }
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Matched& a, const Matched& b) { return a.series < b.series; });
  auto labels = distinguishing_labels(lines);
  bool several_series = panel.how != sim::PanelHow::kSharePercent && panel.series.size() > 1;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Matched& m = lines[i];
    PanelLine line;
    line.column = ts.columns[m.col];
    const std::string& metric = panel.series[m.series];
    std::string name = several_series ? metric.substr(metric.rfind('.') + 1) : "";
    line.label = name + (name.empty() || labels[i].empty() ? "" : " ") + labels[i];
    if (line.label.empty()) line.label = metric;
    auto other = second.find(m.labels);
    if (panel.how == sim::PanelHow::kSharePercent && other == second.end()) continue;
    for (std::size_t row = 0; row < ts.rows.size(); ++row) {
      double t = cell(ts, row, tcol);
      double v = std::nan("");
      switch (panel.how) {
        case sim::PanelHow::kLevel:
          v = cell(ts, row, m.col);
          break;
        case sim::PanelHow::kRate: {
          double dt = row == 0 ? 0 : t - cell(ts, row - 1, tcol);
          v = dt > 0 ? delta(ts, row, m.col) / dt : std::nan("");
          break;
        }
        case sim::PanelHow::kSharePercent: {
          double good = delta(ts, row, m.col), bad = delta(ts, row, other->second);
          v = good + bad > 0 ? 100.0 * good / (good + bad) : std::nan("");
          break;
        }
      }
      line.time_s.push_back(t);
      line.value.push_back(v / panel.divide_by);
    }
    out.lines.push_back(std::move(line));
  }
  return out;
}

std::vector<sim::ReportPanel> fallback_panels(const TimeSeries& ts, std::size_t limit) {
  std::vector<sim::ReportPanel> out;
  std::set<std::string> seen;
  const auto tcol = static_cast<std::size_t>(ts.time_column());
  for (std::size_t col = 0; col < ts.columns.size() && out.size() < limit; ++col) {
    std::string metric = parse_column(ts.columns[col]).metric;
    if (col == tcol || metric == "time_ns" || !seen.insert(metric).second) continue;
    out.push_back({.title = metric + " (as sampled)", .series = {metric}, .unit = metric});
  }
  return out;
}

}  // namespace skysim::analysis
