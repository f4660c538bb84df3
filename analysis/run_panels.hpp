#pragma once
// The lines of a report panel, computed from a run's timeseries.csv: the declared series
// matched to their columns (one line per label set), counters turned into per-interval rates
// or shares, units divided out. Drawing is svg_chart's job.
#include <string>
#include <vector>

#include "analysis/plot.hpp"
#include "sim/report_panel.hpp"

namespace skysim::analysis {

struct PanelLine {
  std::string column;  // the timeseries.csv column (for kSharePercent: the first series')
  std::string label;   // what tells this line from the panel's others ("east", "rss_bytes east")
  std::vector<double> time_s;
  std::vector<double> value;  // NaN = no value (a gap)
  std::size_t points() const;  // finite values
};

struct PanelData {
  std::string kind;  // the service kind that declared it; "" for a fallback panel
  sim::ReportPanel panel;
  std::vector<PanelLine> lines;  // empty when the run has none of the series
};

// A column name split as the sampler writes it: metric{k=v;k=v}:field.
struct ColumnName {
  std::string metric;  // with ":field" appended for a histogram field ("queue.wait_ns:p99")
  std::vector<std::pair<std::string, std::string>> labels;
};
ColumnName parse_column(const std::string& column);

PanelData panel_data(const TimeSeries& ts, const std::string& kind, const sim::ReportPanel& panel);

// Without declared panels: one level panel per metric name, in column order, at most `limit`.
std::vector<sim::ReportPanel> fallback_panels(const TimeSeries& ts, std::size_t limit);

}  // namespace skysim::analysis
