#pragma once
// One report panel as HTML: a caption, an inline SVG chart (lines against a UTC date axis,
// units on both axes, limit lines, the timeline's changes and the run's phases as labelled
// markers) and a legend. Written by hand, not by gnuplot, so the report needs no plotting tool
// and every path carries data attributes a test can read back from the browser's DOM:
//   <figure class="panel" data-panel="TITLE" data-kind="KIND" data-lines="N">
//     <svg ...><path class="series" data-series="COLUMN" data-points="N" d="..."/>...</svg>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_panels.hpp"

namespace skysim::analysis {

struct ChartMarker {
  double time_s = 0;  // simulated seconds since the epoch
  std::string tag;    // short, drawn on the chart ("1 band-aid", "B")
  std::string text;   // in full, as the marker's tooltip
};

struct ChartContext {
  std::optional<double> epoch_unix_s;  // none: the x axis is simulated seconds
  double start_s = 0;
  double end_s = 0;
  std::vector<ChartMarker> changes;  // dashed lines across the chart, labelled on top
  std::vector<ChartMarker> phases;   // ticks along the bottom, lettered
};

std::string panel_html(const PanelData& data, const ChartContext& ctx);

// "Mon 06 Apr 17:00" (UTC) of unix seconds.
std::string utc_label(double unix_s, const char* format = "%a %d %b %H:%M");

}  // namespace skysim::analysis
