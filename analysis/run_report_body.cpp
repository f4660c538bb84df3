#include "analysis/run_report_body.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "analysis/plot.hpp"
#include "analysis/run_panels.hpp"

namespace skysim::analysis {

namespace fs = std::filesystem;

namespace {

// assumption: 16 fallback panels keep a page of an undeclared kind readable; every column
// stays in timeseries.csv.
constexpr std::size_t kFallbackPanels = 16;

std::string esc(const std::string& s) { return html_escape(s); }

std::string scalar_text(const Json& j) {
  if (j.is_string()) return j.as_string();
  if (j.is_number()) return format_double(j.as_number());
  if (j.is_bool()) return j.as_bool() ? "true" : "false";
  return j.dump();
}

std::string number_cell(const std::optional<Json>& j) {
  if (!j || !j->is_number()) return "<td>&ndash;</td>";
  char buf[64];
  double v = j->as_number();
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1e15 || v != std::floor(v) ? "%.6g" : "%.0f", v);
  return std::string("<td>") + buf + "</td>";
}

std::string labels_text(const std::optional<Json>& labels) {
  std::string out;
  if (labels.has_value() && labels->is_object()) {
    for (const auto& [k, v] : labels->as_object()) {
      out += (out.empty() ? "" : ", ") + k + "=" + scalar_text(v);
    }
  }
  return out;
}

std::string date_of(const RunReportInputs& run, double t) {
  return run.epoch_unix_s ? utc_label(*run.epoch_unix_s + t) + "Z" : format_double(t) + " s";
}

// Phases of one host with the same leading words ("process died", "first memcached dial
// error") are one group: one letter on the charts, one row in the table.
std::string phase_group(const ChartMarker& p) {
  auto cut = p.text.find_first_of(":;(");
  std::string head = p.text.substr(0, cut);
  while (!head.empty() && head.back() == ' ') head.pop_back();
  return p.tag + ": " + head;
}

struct PhaseGroup {
  std::string letter;
  std::string name;
  std::size_t count = 0;
  double first_s = 0, last_s = 0;
  std::string example;
};

std::vector<PhaseGroup> group_phases(const std::vector<ChartMarker>& phases,
                                     std::vector<ChartMarker>& lettered) {
  std::vector<PhaseGroup> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& p : phases) {
    auto [it, fresh] = index.emplace(phase_group(p), groups.size());
    if (fresh) {
      std::string letter = groups.size() < 26 ? std::string(1, static_cast<char>('A' + groups.size()))
                                               : "Z" + std::to_string(groups.size() - 25);
      groups.push_back({letter, it->first, 0, p.time_s, p.time_s, p.text});
    }
    auto& g = groups[it->second];
    ++g.count;
    g.last_s = p.time_s;
    lettered.push_back({p.time_s, g.letter, p.tag + ": " + p.text});
  }
  return groups;
}

// The run's scalars on a few lines: scenario, dates, seed, scale, fingerprint, ...
std::string glance(const Json& s) {
  std::string items;
  for (const auto& [k, v] : s.as_object()) {
    if (v.is_object() || v.is_array()) continue;
    std::string text = scalar_text(v);
    if (v.is_number()) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g", v.as_number());
      text = buf;
    }
    bool bad = k == "invariants_hold" && text != "true";
    items += "<span" + std::string(bad ? " class=\"differs\"" : "") + "><b>" + esc(k) +
             "</b> " + esc(text) + "</span>\n";
  }
  return "<p class=\"glance\">\n" + items + "</p>\n";
}

std::string timeline_section(const RunReportInputs& run, const std::vector<PhaseGroup>& groups) {
  std::string html = "<h2>Timeline</h2>\n";
  if (!run.changes.empty()) {
    html += "<p>Changes the scenario makes (numbered dashed lines on every panel):</p>\n"
            "<table class=\"text\">\n<tr><th>#</th><th>when</th><th>note</th></tr>\n";
    for (std::size_t i = 0; i < run.changes.size(); ++i) {
      html += "<tr><td>" + std::to_string(i + 1) + "</td><td>" +
              esc(date_of(run, run.changes[i].time_s)) + "</td><td>" + esc(run.changes[i].text) +
              "</td></tr>\n";
    }
    html += "</table>\n";
  }
  if (!groups.empty()) {
    html += "<p>Phases the hosts reported (lettered red ticks along the bottom of every panel; "
            "hover a tick for its text):</p>\n<table class=\"text\">\n<tr><th></th><th>host: "
            "what</th><th>times</th><th>first</th><th>last</th><th>first in full</th></tr>\n";
    for (const auto& g : groups) {
      html += "<tr><td>" + g.letter + "</td><td>" + esc(g.name) + "</td><td>" +
              std::to_string(g.count) + "</td><td>" + esc(date_of(run, g.first_s)) +
              "</td><td>" + esc(date_of(run, g.last_s)) + "</td><td>" + esc(g.example) +
              "</td></tr>\n";
    }
    html += "</table>\n";
  }
  if (run.changes.empty() && groups.empty()) {
    html += "<p>No timeline changes and no phases in this run.</p>\n";
  }
  return html;
}

std::string panels_section(const fs::path& dir, const RunReportInputs& run,
                           const ChartContext& ctx) {
  fs::path csv = dir / "timeseries.csv";
  if (!fs::exists(csv)) return "<h2>Panels</h2>\n<p>No timeseries.csv in this directory.</p>\n";
  TimeSeries ts = read_timeseries(csv.string());
  ChartContext c = ctx;
  if (!ts.rows.empty()) {
    auto tcol = static_cast<std::size_t>(ts.time_column());
    c.start_s = std::min(c.start_s, ts.rows.front()[tcol]);
    c.end_s = std::max(c.end_s, ts.rows.back()[tcol]);
  }
  auto kinds = run.kinds;
  if (kinds.empty()) kinds.push_back({"", fallback_panels(ts, kFallbackPanels)});
  std::string html;
  for (const auto& k : kinds) {
    html += "<h2>" + (k.kind.empty() ? std::string("Series (no panels declared)")
                                     : "Panels of kind <code>" + esc(k.kind) + "</code>") +
            "</h2>\n";
    for (const auto& p : k.panels) html += panel_html(panel_data(ts, k.kind, p), c);
  }
  return html;
}

// Rows "key | value" for every leaf under `j`, nested keys joined with dots; `between` are
// cells between the two (the metrics table's empty labels and type).
void leaf_rows(const Json& j, const std::string& prefix, std::string& rows,
               const std::string& between = "") {
  if (j.is_object()) {
    for (const auto& [k, v] : j.as_object()) leaf_rows(v, prefix.empty() ? k : prefix + "." + k, rows, between);
    return;
  }
  rows += "<tr><td>" + esc(prefix) + "</td>" + between + "<td>" + esc(scalar_text(j)) + "</td></tr>\n";
}

std::string metrics_section(const Json& s) {
  std::optional<Json> metrics = s.find("metrics");
  if (!metrics || !metrics->is_object()) return "";
  std::string plain, hist;
  for (const auto& [key, m] : metrics->as_object()) {
    if (!m.is_object() || !m.find("type")) {  // bare values under dotted names
      std::string rows;
      leaf_rows(m, key, rows, "<td></td><td></td>");
      plain += rows;
      continue;
    }
    std::optional<Json> name = m.find("name");
    std::string metric = name.has_value() ? scalar_text(*name) : key;
    std::string type = m.find("type").has_value() ? scalar_text(m.at("type")) : "";
    std::string head = "<tr><td>" + esc(metric) + "</td><td>" + esc(labels_text(m.find("labels"))) +
                       "</td>";
    if (type == "histogram") {
      hist += head;
      for (const char* f : {"count", "mean", "p50", "p90", "p99", "p999", "max"}) {
        hist += number_cell(m.find(f));
      }
      hist += "</tr>\n";
    } else {
      plain += head + "<td>" + esc(type) + "</td>" + number_cell(m.find("value")) + "</tr>\n";
    }
  }
  std::string html = "<h2>Metrics at the end of the run</h2>\n";
  if (!plain.empty()) {
    html += "<table class=\"metrics\">\n<tr><th>metric</th><th>labels</th><th>type</th>"
            "<th>value</th></tr>\n" + plain + "</table>\n";
  }
  if (!hist.empty()) {
    html += "<h3>Histograms (whole run)</h3>\n<table class=\"metrics\">\n<tr><th>metric</th>"
            "<th>labels</th><th>count</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th>"
            "<th>p99.9</th><th>max</th></tr>\n" + hist + "</table>\n";
  }
  return html;
}

std::string invariants_section(const Json& s) {
  std::optional<Json> inv = s.find("invariants");
  if (!inv || !inv->is_array()) return "";
  std::string html = "<h2>Invariants</h2>\n<table class=\"text\">\n<tr><th>invariant</th>"
                     "<th>instance</th><th>holds</th><th>error</th></tr>\n";
  for (const auto& i : inv->as_array()) {
    if (!i.is_object()) continue;
    auto text = [&i](const char* k) {
      std::optional<Json> v = i.find(k);
      return v.has_value() ? scalar_text(*v) : std::string();
    };
    bool ok = text("ok") == "true";
    html += "<tr><td>" + esc(text("name")) + "</td><td>" + esc(text("instance")) + "</td><td" +
            (ok ? "" : " class=\"differs\"") + ">" + (ok ? "yes" : "NO") + "</td><td>" +
            esc(text("error")) + "</td></tr>\n";
  }
  return html + "</table>\n";
}

// Whatever else summary.json holds (fingerprints per group and per datacenter, ...).
std::string other_sections(const Json& s) {
  std::string html;
  for (const auto& [k, v] : s.as_object()) {
    if (k == "metrics" || k == "invariants" || k == "phases") continue;
    std::string rows;
    if (v.is_object()) {
      leaf_rows(v, "", rows);
    } else if (v.is_array()) {
      for (const auto& item : v.as_array()) {
        leaf_rows(item, "", rows);
        rows += "<tr><td colspan=\"2\"></td></tr>\n";
      }
    } else {
      continue;
    }
    html += "<h2>" + esc(k) + "</h2>\n<table class=\"text\">\n" + rows + "</table>\n";
  }
  return html;
}

}  // namespace

std::string change_tag(std::size_t number, const std::string& note) {
  std::string head = note;
  for (const char* stop : {" \xE2\x80\x94 ", " - ", ": ", " (", "; ", ", "}) {
    auto at = head.find(stop);
    if (at != std::string::npos && at > 0) head = head.substr(0, at);
  }
  // assumption: ~24 characters keep neighbouring labels apart on a 1000-unit chart.
  if (head.size() > 24) {
    auto space = head.rfind(' ', 24);
    head = head.substr(0, space == std::string::npos || space < 8 ? 24 : space) + "\xE2\x80\xA6";
  }
  return std::to_string(number) + (head.empty() ? "" : " " + head);
}

std::string run_body(const Json& s, const fs::path& dir, const RunReportInputs& run) {
  RunReportInputs in = run;
  for (std::size_t i = 0; i < in.changes.size(); ++i) {
    if (in.changes[i].tag.empty()) in.changes[i].tag = change_tag(i + 1, in.changes[i].text);
  }
  ChartContext ctx{in.epoch_unix_s, 0, 0, in.changes, {}};
  auto groups = group_phases(in.phases, ctx.phases);
  std::string key =
      "<p class=\"key\">On every panel: numbered dashed lines are the scenario's timeline changes, "
      "lettered red ticks along the bottom the phases the hosts reported (both listed under "
      "Timeline below; hover a marker for its text); dashed red lines are limits. Counters are "
      "drawn per interval (a rate or a share), not cumulative.</p>\n";
  return glance(s) + key + panels_section(dir, in, ctx) + timeline_section(in, groups) +
         metrics_section(s) + invariants_section(s) + other_sections(s);
}

}  // namespace skysim::analysis
