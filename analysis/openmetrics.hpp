#pragma once
// A run's sampled time series in the OpenMetrics text format, stamped with SIMULATED time
// (the scenario's epoch + simulated time, as Unix seconds), so `promtool tsdb
// create-blocks-from openmetrics` can load a run into Prometheus and its dashboards can show
// April 2026 at April 2026 (docs/observability.md).
//
// Mapping (deterministic; a clash is an error, never a silent merge):
//   name      "skysim_" + the skysim name with every character outside [A-Za-z0-9_] made '_'
//             ("memcached.bind_errors" -> skysim_memcached_bind_errors)
//   labels    kept, keys mapped like names (a key starting with a digit gets a leading '_'),
//             values escaped (\ " and newline)
//   counter   `# TYPE counter`, samples NAME_total (cumulative since the series was registered)
//   gauge     `# TYPE gauge` (gauges and gauge functions alike)
//   histogram `# TYPE summary` over the sampler's per-INTERVAL columns: quantile="0.5", "0.9",
//             "0.99", "0.999" and "1" (the interval's :max) describe only the observations since
//             the series' previous sample, NaN when there were none; NAME_count is cumulative
//             (the running sum of the per-interval :count, which is exactly the histogram's
//             count). There is no _sum: the sampler keeps none.
//   unit      `# UNIT` when the name ends in _ns, _us, _ms, _seconds or _bytes.
// Families are sorted by name; within one, series by skysim key; within a series, points by
// time, each point's samples together. Rows at the same instant (the run's last tick and the
// final sample) become one point: the last value of a counter or gauge, and for a histogram
// the summed count, the largest max, and the quantiles of the row with more observations.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/json.hpp"
#include "analysis/metastability.hpp"

namespace skysim::analysis {

// What the writer needs of one skysim series (a registry entry; summary.json "metrics").
struct SeriesDescription {
  enum class Type { kCounter, kGauge, kHistogram };
  std::string name;                                         // "memcached.bind_errors"
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by key
  Type type = Type::kGauge;
};

// A run's series and their samples, as summary.json and timeseries.csv hold them.
struct SampledRun {
  std::int64_t epoch_unix_ns = 0;
  std::map<std::string, SeriesDescription> series;  // by canonical key "name{k=v,...}"
  // Columns: a key, or for a histogram key:count, :p50, :p90, :p99, :p999 and :max;
  // time_ns must be filled.
  TimeSeriesTable table;
};

// The series of a summary.json ("metrics": {"<key>": {"type", "name", "labels"}}). Throws
// std::invalid_argument on a missing or unknown type.
std::map<std::string, SeriesDescription> series_from_summary(const Json& summary);

// Throws std::invalid_argument when the run cannot be written faithfully: a column with no
// series, a histogram missing one of its columns, two series mapped to one OpenMetrics name, a
// counter that is negative or NaN, rows without time_ns.
void write_openmetrics(std::ostream& out, const SampledRun& run);
std::string to_openmetrics(const SampledRun& run);

// The pieces of the mapping, for tests and docs.
std::string openmetrics_name(std::string_view skysim_name);       // "skysim_" + mapped name
std::string openmetrics_label_name(std::string_view skysim_key);  // mapped label key
std::string escape_label_value(std::string_view v);               // \\ \" \n, also for HELP texts
std::string openmetrics_unit(std::string_view family_name);       // "ns", "bytes", or ""
// Unix seconds, exact to the nanosecond, trailing zeros dropped: "1775433600", "1775433600.25".
std::string openmetrics_timestamp(std::int64_t unix_ns);
// "NaN", "+Inf", "-Inf", integers without exponent, others the shortest exact text.
std::string openmetrics_value(double v);

}  // namespace skysim::analysis
