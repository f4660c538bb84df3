#pragma once
// `skysim report DIR`: one self-contained HTML page for a run directory (summary.json,
// timeseries.csv: the panels its service kinds declare, drawn by svg_chart, then tables) or a
// compare directory (compare.json, plots/). Inline CSS, plots inlined as
// SVG, no external URL anywhere — it opens offline, from a mail attachment or a CI artifact.
#include <optional>
#include <string>
#include <vector>

#include "analysis/svg_chart.hpp"
#include "sim/report_panel.hpp"

namespace skysim::analysis {

// What a run report knows beyond the files of the directory: the caller (app/cmd_report.cpp)
// reads it from the run's resolved scenario and the model registry.
struct RunReportInputs {
  struct KindPanels {
    std::string kind;
    std::vector<sim::ReportPanel> panels;
  };
  std::vector<KindPanels> kinds;  // none: one panel per sampled metric (at most 16)
  std::optional<double> epoch_unix_s;
  std::vector<ChartMarker> changes;  // the timeline's entries; text = the note (tag: made here)
  std::vector<ChartMarker> phases;   // summary.json phases; tag = the host, text = what happened
};

// Writes DIR/report.html and returns its path. Throws std::invalid_argument when DIR holds
// neither compare.json nor summary.json.
std::string write_report(const std::string& dir, const RunReportInputs& run = {});

// `<svg ...>...</svg>` from a gnuplot SVG file, ready to inline in HTML: the XML prolog and the
// namespace declarations (URLs, and redundant inside HTML) are removed.
std::string inline_svg(const std::string& svg_text);

std::string html_escape(const std::string& s);

}  // namespace skysim::analysis
