#pragma once
// `skysim report DIR`: one self-contained HTML page for a run directory (summary.json,
// timeseries.csv) or a compare directory (compare.json, plots/). Inline CSS, plots inlined as
// SVG, no external URL anywhere — it opens offline, from a mail attachment or a CI artifact.
#include <string>

namespace skysim::analysis {

// Writes DIR/report.html and returns its path. Throws std::invalid_argument when DIR holds
// neither compare.json nor summary.json.
std::string write_report(const std::string& dir);

// `<svg ...>...</svg>` from a gnuplot SVG file, ready to inline in HTML: the XML prolog and the
// namespace declarations (URLs, and redundant inside HTML) are removed.
std::string inline_svg(const std::string& svg_text);

std::string html_escape(const std::string& s);

}  // namespace skysim::analysis
