#include "analysis/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "analysis/json.hpp"
#include "analysis/plot.hpp"
#include "analysis/run_report_body.hpp"
#include "analysis/sweep_runner.hpp"

namespace skysim::analysis {

namespace fs = std::filesystem;

namespace {

const char* kStyle = R"(<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { padding: .25em .7em; border-bottom: 1px solid #e4e4e4; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f4f4f4; }
td.differs { color: #b00020; font-weight: bold; }
.plot { margin: 1em 0; } .plot svg { max-width: 100%; height: auto; }
.fail { background: #fff0f0; padding: .5em 1em; border-left: 4px solid #b00020; }
code { background: #f4f4f4; padding: 0 .2em; }
p.glance span { display: inline-block; margin: 0 1.2em .2em 0; } p.glance span.differs { color: #b00020; }
p.key { color: #444; font-size: .9em; }
table.text td, table.text th { text-align: left; vertical-align: top; }
table.metrics td:nth-child(2) { text-align: left; color: #555; }
figure.panel { margin: 1.2em 0; border: 1px solid #e4e4e4; padding: .4em .6em; }
figure.panel figcaption { font-weight: 600; margin-bottom: .2em; }
svg.chart { width: 100%; height: auto; display: block; font: 11px system-ui, sans-serif; }
svg.chart .frame { fill: #fff; stroke: #999; }
svg.chart .grid { stroke: #ececec; }
svg.chart .ytick { text-anchor: end; fill: #444; } svg.chart .xtick { text-anchor: middle; fill: #444; }
svg.chart .xtick.day { font-weight: 600; }
svg.chart .axis { fill: #222; font-weight: 600; text-anchor: middle; }
svg.chart text.axis:first-of-type { text-anchor: end; }
svg.chart path.series { fill: none; stroke-width: 1.6; stroke-linejoin: round; }
svg.chart line.limit { stroke: #b00020; stroke-dasharray: 6 4; } svg.chart text.limit { fill: #b00020; }
svg.chart .change line { stroke: #333; stroke-dasharray: 3 3; } svg.chart .change text { fill: #111; font-weight: 600; }
svg.chart .phase path { fill: #d62728; } svg.chart .phase text { fill: #d62728; text-anchor: middle; font-weight: 600; }
.legend span { margin-right: 1.2em; white-space: nowrap; font-size: .9em; }
.legend i { display: inline-block; width: 1.4em; height: .25em; vertical-align: middle; margin-right: .3em; }
.legend i.limit { border-top: 2px dashed #b00020; height: 0; }
</style>
)";

std::string num(double x, const char* f = "%.6g") {
  if (!std::isfinite(x)) {
    return "&ndash;";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

double number_or_nan(const Json& j) { return j.is_number() ? j.as_number() : std::nan(""); }

std::vector<fs::path> svgs_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".svg") {
        out.push_back(e.path());
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string plots_section(const std::vector<fs::path>& svgs) {
  std::string html = "<h2>Plots</h2>\n";
  if (svgs.empty()) {
    return html + "<p>No plots (gnuplot was not available, or nothing to plot).</p>\n";
  }
  for (const auto& p : svgs) {
    html += "<div class=\"plot\">" + inline_svg(read_file_text(p.string())) + "</div>\n";
  }
  return html;
}

std::string page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         html_escape(title) + "</title>\n" + kStyle + "</head>\n<body>\n<h1>" +
         html_escape(title) + "</h1>\n" + body + "</body>\n</html>\n";
}

std::string compare_body(const Json& c, const fs::path& dir) {
  const Json& sweep = c.at("sweep");
  std::string body = "<table>\n<tr><th>scenario</th><td><code>" +
                     html_escape(sweep.at("scenario").as_string()) + "</code></td></tr>\n";
  for (const auto& v : sweep.at("vary").as_array()) {
    std::string values;
    for (const auto& x : v.at("values").as_array()) {
      values += (values.empty() ? "" : ", ") + x.as_string();
    }
    body += "<tr><th>varied</th><td><code>" + html_escape(v.at("path").as_string()) +
            "</code> = " + html_escape(values) + "</td></tr>\n";
  }
  body += "<tr><th>seeds</th><td>" + std::to_string(sweep.at("seeds").as_array().size()) +
          "</td></tr>\n<tr><th>runs</th><td>" +
          std::to_string(c.at("runs_ok").as_int()) + " ok of " +
          std::to_string(c.at("runs_total").as_int()) + "</td></tr>\n</table>\n";
  body += "<p>Each table: mean over seeds, 95&nbsp;% confidence interval (Student t), ratio of "
          "the mean to the first variant's, and the paired comparison with the first variant: "
          "the mean of the per-seed differences (every variant runs the same seeds), its "
          "95&nbsp;% interval and the p-value of a paired t-test; &ldquo;differs&rdquo; when "
          "p &lt; 0.05.</p>\n";
  for (const auto& t : c.at("tables").as_array()) {
    auto unit = t.find("unit");
    std::string unit_text = unit && !unit->as_string().empty()
                                ? " <small>[" + html_escape(unit->as_string()) + "]</small>"
                                : "";
    body += "<h2>" + html_escape(t.at("metric").as_string()) + unit_text + "</h2>\n<table>\n"
            "<tr><th>variant</th><th>n</th><th>mean</th><th>95% CI</th><th>sd</th>"
            "<th>ratio to first</th><th>diff (paired)</th><th>diff 95% CI</th><th>p</th>"
            "<th>vs first</th></tr>\n";
    for (const auto& r : t.at("rows").as_array()) {
      bool first = r.at("variant").as_int() == 0;
      auto paired = r.find("paired");
      bool have = paired && !paired->is_null();
      bool differs = have && paired->at("differs").as_bool();
      std::string mark = first ? "base" : !have ? "&ndash;" : differs ? "differs" : "same";
      std::string diff = "<td>&ndash;</td><td>&ndash;</td><td>&ndash;</td>";
      if (have) {
        diff = "<td>" + num(paired->at("mean").as_number()) + "</td><td>[" +
               num(paired->at("ci95_low").as_number()) + ", " +
               num(paired->at("ci95_high").as_number()) + "]</td><td>" +
               num(paired->at("p_value").as_number(), "%.4f") + "</td>";
      }
      body += "<tr><td>" + html_escape(r.at("label").as_string()) + "</td><td>" +
              std::to_string(r.at("n").as_int()) + "</td><td>" +
              num(number_or_nan(r.at("mean"))) + "</td><td>[" +
              num(number_or_nan(r.at("ci95_low"))) + ", " +
              num(number_or_nan(r.at("ci95_high"))) + "]</td><td>" +
              num(number_or_nan(r.at("sd"))) + "</td><td>" +
              num(number_or_nan(r.at("ratio_to_first")), "%.3f") + "</td>" + diff + "<td" +
              (differs ? " class=\"differs\"" : "") + ">" + mark + "</td></tr>\n";
    }
    body += "</table>\n";
    if (auto trend = t.find("trend")) {
      body += "<p>Trend: " + num(trend->at("slope").as_number()) + " per unit of <code>" +
              html_escape(trend->at("parameter").as_string()) + "</code> (95% CI [" +
              num(trend->at("slope_ci95_low").as_number()) + ", " +
              num(trend->at("slope_ci95_high").as_number()) + "], R&sup2; " +
              num(trend->at("r_squared").as_number(), "%.3f") + ")</p>\n";
    }
  }
  const auto& failures = c.at("failures").as_array();
  if (!failures.empty()) {
    body += "<h2>Failed runs</h2>\n<div class=\"fail\">\n";
    for (const auto& f : failures) {
      body += "<p>run " + std::to_string(f.at("run").as_int()) + " (" +
              html_escape(f.at("label").as_string()) + ", seed " +
              std::to_string(f.at("seed").as_uint64()) + "): " +
              html_escape(f.at("failure").as_string()) + "<br>reproduce: <code>" +
              html_escape(f.at("reproducer").as_string()) + "</code></p>\n";
    }
    body += "</div>\n";
  }
  return body + plots_section(svgs_in(dir / "plots"));
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string inline_svg(const std::string& svg_text) {
  auto start = svg_text.find("<svg");
  if (start == std::string::npos) {
    throw std::runtime_error("not an SVG document (no <svg element)");
  }
  std::string svg = svg_text.substr(start);
  for (const char* attr : {" xmlns=\"http://www.w3.org/2000/svg\"",
                           " xmlns:xlink=\"http://www.w3.org/1999/xlink\""}) {
    std::string a = attr;
    for (auto pos = svg.find(a); pos != std::string::npos; pos = svg.find(a)) {
      svg.erase(pos, a.size());
    }
  }
  return svg;
}

std::string write_report(const std::string& dir_text, const RunReportInputs& run) {
  fs::path dir(dir_text);
  std::string html;
  if (fs::exists(dir / "compare.json")) {
    Json c = Json::parse(read_file_text((dir / "compare.json").string()));
    html = page("skysim compare: " + c.at("sweep").at("scenario").as_string(),
                compare_body(c, dir));
  } else if (fs::exists(dir / "summary.json")) {
    Json s = Json::parse(read_file_text((dir / "summary.json").string()));
    std::string name = "run";
    if (auto sc = s.find("scenario"); sc && sc->is_string()) {
      name = sc->as_string();
    }
    html = page("skysim run: " + name, run_body(s, dir, run));
  } else {
    throw std::invalid_argument("report: " + dir_text +
                                " holds neither compare.json (a compare directory) nor "
                                "summary.json (a run directory)");
  }
  auto path = (dir / "report.html").string();
  write_file_text(path, html);
  return path;
}

}  // namespace skysim::analysis
