#pragma once
// Plots through gnuplot (a Debian package; see docs/compare.md): SVG, so a report can inline
// them and they stay sharp. Each function writes data and script files beside the plots, runs
// gnuplot once, and returns the SVG paths it wrote.
#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/comparison.hpp"

namespace skysim::analysis {

// Full path of `name` found in PATH, or "" when absent.
std::string find_program(const std::string& name);

// One plot per metric: the variants' means with 95 % CI error bars.
std::vector<std::string> plot_metrics(const Comparison& c, const std::string& dir);

// A run's timeseries.csv: a header, then rows; "time_s" (or column 0) is the time axis.
// Empty cells (a series that did not exist yet) read as NaN, which gnuplot leaves out.
struct TimeSeries {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  int column(const std::string& name) const;  // -1 when absent
  int time_column() const;                    // "time_s" when present, else column 0
};
TimeSeries read_timeseries(const std::string& path);

// One plot per series name: each variant's mean over its successful seeds, overlaid.
// `runs_dir` holds the run directories (see sweep_runner.hpp). Series a run lacks are skipped
// with a note on `warn`.
std::vector<std::string> plot_series(const Comparison& c, const std::vector<RunRecord>& records,
                                     const std::string& runs_dir,
                                     const std::vector<std::string>& names,
                                     const std::string& dir, std::ostream& warn);

}  // namespace skysim::analysis
