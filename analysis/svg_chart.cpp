#include "analysis/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

#include "analysis/report.hpp"

namespace skysim::analysis {

namespace {

// Geometry of one chart, in SVG user units (the page scales it to its width).
constexpr double kWidth = 1000, kHeight = 300;
constexpr double kLeft = 78, kRight = 150, kTop = 34, kBottom = 46;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr double kCharW = 6.8;  // assumption: average glyph width of the 11px bold sans labels

const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                         "#8c564b", "#e377c2", "#17becf", "#7f7f7f"};

std::string fmt(double x, const char* f = "%.1f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// Tick text: short, with k/M for large values so the y axis stays narrow.
std::string tick_text(double v) {
  double a = std::fabs(v);
  if (a >= 1e6) return fmt(v / 1e6, "%.3gM");
  if (a >= 1e4) return fmt(v / 1e3, "%.4gk");
  return fmt(v, "%.4g");
}

struct YScale {
  bool log = false;
  double lo = 0, hi = 1;
  double y(double v) const {
    double f = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                   : (v - lo) / (hi - lo);
    return kTop + kPlotH * (1 - f);
  }
  bool drawable(double v) const { return std::isfinite(v) && (!log || v > 0); }
};

double nice_step(double span, int target) {
  double raw = span / target;
  double mag = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) return m * mag;
  }
  return 10 * mag;
}

YScale y_scale(const PanelData& d) {
  YScale s;
  s.log = d.panel.log_y;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  auto see = [&](double v) {
    if (s.drawable(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  };
  for (const auto& l : d.lines) {
    for (double v : l.value) see(v);
  }
  for (const auto& l : d.panel.limits) see(l.value / d.panel.divide_by);
  if (d.panel.how == sim::PanelHow::kSharePercent) {
    lo = 0;
    hi = 100;
  }
  if (!std::isfinite(lo)) {  // nothing to draw: an empty frame
    lo = s.log ? 1 : 0;
    hi = s.log ? 10 : 1;
  }
  if (s.log) {
    s.lo = std::pow(10, std::floor(std::log10(lo)));
    s.hi = std::pow(10, std::ceil(std::log10(hi * 1.01)));
    if (s.hi <= s.lo) s.hi = s.lo * 10;
  } else {
    lo = std::min(lo, 0.0);
    if (hi <= lo) hi = lo + 1;
    double step = nice_step(hi - lo, 5);
    s.lo = std::floor(lo / step) * step;
    s.hi = std::ceil(hi * 1.04 / step) * step;
  }
  return s;
}

std::vector<double> y_ticks(const YScale& s) {
  std::vector<double> out;
  if (s.log) {
    for (double v = s.lo; v <= s.hi * 1.0001 && out.size() < 24; v *= 10) out.push_back(v);
    return out;
  }
  double step = nice_step(s.hi - s.lo, 5);
  for (int i = 0; i <= 40; ++i) {
    double v = s.lo + i * step;
    if (v > s.hi + step * 1e-9) break;
    out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  }
  return out;
}

struct XScale {
  double t0 = 0, t1 = 1;
  double x(double t) const { return kLeft + kPlotW * (t - t0) / (t1 - t0); }
};

// Tick positions in simulated seconds and their two-line labels (time, then the date when it
// changes). With an epoch, ticks fall on whole UTC minutes/hours/days.
struct Tick {
  double t;
  std::string top, bottom;
};

std::vector<Tick> x_ticks(const XScale& xs, const std::optional<double>& epoch) {
  std::vector<Tick> out;
  double span = xs.t1 - xs.t0;
  if (!epoch) {
    double step = nice_step(span, 8);
    for (double t = std::ceil(xs.t0 / step) * step; t <= xs.t1 && out.size() < 40; t += step) {
      out.push_back({t, tick_text(t), ""});
    }
    return out;
  }
  double step = 0;
  for (double s : {60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 10800.0, 21600.0, 43200.0,
                   86400.0, 172800.0, 604800.0}) {
    step = s;
    if (span / s <= 11) break;
  }
  std::string last_day;
  double first = std::ceil((*epoch + xs.t0) / step) * step;
  for (double u = first; u <= *epoch + xs.t1 && out.size() < 40; u += step) {
    std::string day = utc_label(u, "%a %d %b");
    out.push_back({u - *epoch, step >= 86400 ? day : utc_label(u, "%H:%M"),
                   step < 86400 && day != last_day ? day : ""});
    last_day = day;
  }
  return out;
}

std::string esc(const std::string& s) { return html_escape(s); }

// Places labels left to right on `rows` rows; a label that fits on no row is left out (its
// marker keeps the full text as a tooltip).
struct LabelRows {
  std::vector<double> ends;
  explicit LabelRows(int rows) : ends(static_cast<std::size_t>(rows), -1e9) {}
  int place(double x, std::size_t chars) {
    for (std::size_t r = 0; r < ends.size(); ++r) {
      if (x >= ends[r] + 4) {
        ends[r] = x + static_cast<double>(chars) * kCharW;
        return static_cast<int>(r);
      }
    }
    return -1;
  }
};

// The path of one line, thinned to at most the first, lowest, highest and last point of each
// pixel column: the drawn shape (spikes included) is the same, the page stays small.
std::string line_path(const PanelLine& line, const XScale& xs, const YScale& ys) {
  std::string d;
  bool pen_down = false;
  long column = std::numeric_limits<long>::min();
  std::vector<std::pair<double, double>> bucket;  // (x, y) of the current pixel column
  auto flush = [&] {
    if (bucket.empty()) return;
    std::vector<std::size_t> keep{0, bucket.size() - 1};
    auto lo = std::min_element(bucket.begin(), bucket.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
    auto hi = std::max_element(bucket.begin(), bucket.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
    keep.push_back(static_cast<std::size_t>(lo - bucket.begin()));
    keep.push_back(static_cast<std::size_t>(hi - bucket.begin()));
    std::sort(keep.begin(), keep.end());
    keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
    for (auto i : keep) {
      d += (pen_down ? "L" : "M") + fmt(bucket[i].first) + "," + fmt(bucket[i].second);
      pen_down = true;
    }
    bucket.clear();
  };
  for (std::size_t i = 0; i < line.value.size(); ++i) {
    double t = line.time_s[i], v = line.value[i];
    if (!ys.drawable(v) || t < xs.t0 || t > xs.t1) {
      flush();
      pen_down = false;  // a gap: no value in this interval
      continue;
    }
    double x = xs.x(t);
    auto c = static_cast<long>(std::floor(x));
    if (c != column) {
      flush();
      column = c;
    }
    bucket.emplace_back(x, ys.y(std::clamp(v, ys.lo, ys.hi)));
  }
  flush();
  return d;
}

}  // namespace

std::string utc_label(double unix_s, const char* format) {
  std::time_t t = static_cast<std::time_t>(std::floor(unix_s));
  std::tm tm{};
  gmtime_r(&t, &tm);  // a pure conversion of the run's dates, not a clock reading
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

std::string panel_html(const PanelData& d, const ChartContext& ctx) {
  XScale xs{ctx.start_s, ctx.end_s > ctx.start_s ? ctx.end_s : ctx.start_s + 1};
  YScale ys = y_scale(d);
  const std::string right = fmt(kLeft + kPlotW), bottom = fmt(kTop + kPlotH);
  std::string svg = "<svg class=\"chart\" viewBox=\"0 0 " + fmt(kWidth, "%.0f") + " " +
                    fmt(kHeight, "%.0f") + "\" role=\"img\" aria-label=\"" + esc(d.panel.title) +
                    "\">\n<rect x=\"" + fmt(kLeft) + "\" y=\"" + fmt(kTop) + "\" width=\"" +
                    fmt(kPlotW) + "\" height=\"" + fmt(kPlotH) + "\" class=\"frame\"/>\n";
  for (double v : y_ticks(ys)) {
    std::string y = fmt(ys.y(v));
    svg += "<line class=\"grid\" x1=\"" + fmt(kLeft) + "\" x2=\"" + right + "\" y1=\"" + y +
           "\" y2=\"" + y + "\"/><text class=\"ytick\" x=\"" + fmt(kLeft - 6) + "\" y=\"" + y +
           "\" dy=\"4\">" + tick_text(v) + "</text>\n";
  }
  for (const auto& t : x_ticks(xs, ctx.epoch_unix_s)) {
    std::string x = fmt(xs.x(t.t));
    svg += "<line class=\"grid\" x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + fmt(kTop) +
           "\" y2=\"" + bottom + "\"/><text class=\"xtick\" x=\"" + x + "\" y=\"" +
           fmt(kTop + kPlotH + 15) + "\">" + esc(t.top) + "</text>";
    if (!t.bottom.empty()) {
      svg += "<text class=\"xtick day\" x=\"" + x + "\" y=\"" + fmt(kTop + kPlotH + 29) + "\">" +
             esc(t.bottom) + "</text>";
    }
    svg += "\n";
  }
  svg += "<text class=\"axis\" x=\"" + right + "\" y=\"" + fmt(kHeight - 4) + "\">" +
         (ctx.epoch_unix_s ? "date (UTC)" : "simulated time (s)") +
         "</text>\n<text class=\"axis\" transform=\"translate(16," + fmt(kTop + kPlotH / 2) +
         ") rotate(-90)\">" + esc(d.panel.unit) + "</text>\n";
  for (const auto& l : d.panel.limits) {
    double v = l.value / d.panel.divide_by;
    if (!ys.drawable(v)) continue;
    std::string y = fmt(ys.y(v));
    svg += "<line class=\"limit\" data-limit=\"" + esc(l.label) + "\" x1=\"" + fmt(kLeft) +
           "\" x2=\"" + right + "\" y1=\"" + y + "\" y2=\"" + y + "\"/><text class=\"limit\" x=\"" +
           fmt(kLeft + kPlotW + 4) + "\" y=\"" + y + "\" dy=\"4\">" + esc(l.label) + " " +
           tick_text(v) + "</text>\n";
  }
  for (std::size_t i = 0; i < d.lines.size(); ++i) {
    const auto& line = d.lines[i];
    svg += "<path class=\"series\" data-series=\"" + esc(line.column) + "\" data-points=\"" +
           std::to_string(line.points()) + "\" stroke=\"" + kColors[i % 8] + "\" d=\"" +
           line_path(line, xs, ys) + "\"/>\n";
  }
  LabelRows change_rows(2);
  for (const auto& m : ctx.changes) {
    if (m.time_s < xs.t0 || m.time_s > xs.t1) continue;
    std::string x = fmt(xs.x(m.time_s));
    svg += "<g class=\"change\" data-at=\"" + fmt(m.time_s, "%.0f") + "\"><title>" + esc(m.text) +
           "</title><line x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + fmt(kTop - 4) + "\" y2=\"" +
           bottom + "\"/>";
    // A label that would run off the right edge is drawn leftwards of its line.
    double width = static_cast<double>(m.tag.size()) * kCharW;
    bool leftwards = xs.x(m.time_s) + 3 + width > kWidth;
    double start = leftwards ? xs.x(m.time_s) - 3 - width : xs.x(m.time_s) + 3;
    int row = change_rows.place(start, m.tag.size());
    if (row >= 0) {
      svg += "<text x=\"" + fmt(leftwards ? xs.x(m.time_s) - 3 : start) + "\" y=\"" +
             fmt(12.0 + 13 * row) + "\"" + (leftwards ? " text-anchor=\"end\"" : "") + ">" +
             esc(m.tag) + "</text>";
    }
    svg += "</g>\n";
  }
  LabelRows phase_rows(1);
  for (const auto& m : ctx.phases) {
    if (m.time_s < xs.t0 || m.time_s > xs.t1) continue;
    double x = xs.x(m.time_s);
    svg += "<g class=\"phase\"><title>" + esc(m.text) + "</title><path d=\"M" + fmt(x) + "," +
           fmt(kTop + kPlotH) + "l-4,-8h8z\"/>";
    if (phase_rows.place(x - 3, m.tag.size()) >= 0) {
      svg += "<text x=\"" + fmt(x) + "\" y=\"" + fmt(kTop + kPlotH - 11) + "\">" + esc(m.tag) +
             "</text>";
    }
    svg += "</g>\n";
  }
  svg += "</svg>\n";
  std::string legend = "<div class=\"legend\">";
  for (std::size_t i = 0; i < d.lines.size(); ++i) {
    legend += "<span><i style=\"background:" + std::string(kColors[i % 8]) + "\"></i>" +
              esc(d.lines[i].label) + "</span>";
  }
  if (d.lines.empty()) {
    legend += "<span>none of the series " + esc([&] {
      std::string s;
      for (const auto& n : d.panel.series) s += (s.empty() ? "" : ", ") + n;
      return s;
    }()) + " is in this run</span>";
  }
  for (const auto& l : d.panel.limits) {
    legend += "<span><i class=\"limit\"></i>" + esc(l.label) + "</span>";
  }
  legend += "</div>\n";
  return "<figure class=\"panel\" data-panel=\"" + esc(d.panel.title) + "\" data-kind=\"" +
         esc(d.kind) + "\" data-lines=\"" + std::to_string(d.lines.size()) +
         "\">\n<figcaption>" + esc(d.panel.title) + (d.panel.log_y ? " <small>(log scale)</small>" : "") +
         "</figcaption>\n" + svg + legend + "</figure>\n";
}

}  // namespace skysim::analysis
