#pragma once
// The metastability report: after a run whose trigger was removed (a batch client stopped, a
// fault healed, a fix shipped), did each metric return to where it was before the trigger, and
// when? A metric that is still outside its pre-trigger band after the trigger is gone is the
// signature of a metastable failure (domain.md §1: the April 2026 restart loop kept the data
// plane down after the batch client's load alone could no longer explain it).
//
// Method (docs/compare.md "Metastability report"):
//   band      mean ± max(k·sd, rel_floor·|mean|) of the metric over the baseline window, the
//             `baseline` before the trigger began (skipping warm-up rows, see below);
//   affected  the metric left its band at some row after the trigger began;
//   returned  the first row at or after the trigger's end that starts `hold` consecutive rows
//             inside the band; none before the end of the evaluation window = "stayed degraded
//             after the trigger was removed".
// Counters are cumulative in timeseries.csv; they are turned into per-second rates (difference
// of consecutive rows over the interval) first, so a band means "the usual rate".
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/json.hpp"

namespace skysim::analysis {

// timeseries.csv, column by column; an empty cell (a series registered late) is nullopt.
struct TimeSeriesTable {
  std::vector<double> time_s;
  // The exact instants (simulated ns since the epoch), when the file has a time_ns column
  // (every timeseries.csv skysim writes); empty otherwise.
  std::vector<std::int64_t> time_ns;
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<double>>> values;  // [column][row]

  // Throws std::invalid_argument naming `where` and the line on malformed input.
  static TimeSeriesTable parse_csv(std::string_view text, std::string_view where);
  std::optional<std::size_t> column(std::string_view name) const;
  // Replaces cumulative counter columns by their per-second rate; the first row becomes empty.
  void counters_to_rates(const std::set<std::string>& counter_columns);
};

struct Trigger {
  std::string what;      // "source batch", "crash of east/web/1", "--trigger-end"
  double start_s = 0;    // simulated seconds since the epoch
  double end_s = 0;      // when the trigger was removed
  double horizon_s = 0;  // evaluate recovery up to here; <= end_s = the series' end
  // Baseline from here (the last deliberate change before the trigger, so the band describes
  // the steady state the trigger disturbed); < 0 = the warm-up rule below.
  double baseline_from_s = -1;
};

struct MetastabilityOptions {
  // assumption: 3 sd, the usual control-chart limit (~0.3 % of in-control Gaussian samples
  // fall outside); `hold` guards against the noise that still gets out.
  double k = 3.0;
  // assumption: a band never narrower than ±5 % of the baseline mean, so a metric that was
  // almost constant before the trigger (sd ≈ 0) is not "degraded" by a 1 % wobble.
  double rel_floor = 0.05;
  // assumption: 3 consecutive rows in band count as "returned" (at the default 10 s–1 min
  // sampling that is half a minute to a few minutes of normal behaviour).
  int hold = 3;
  // Baseline window length in seconds before the trigger. 0 = from trigger.baseline_from_s,
  // or when that is unset all rows before the trigger after the warm-up (assumption: the first
  // 10 % of that span and at least the first row, because queues start empty).
  double baseline_s = 0;
  std::vector<std::string> metrics;  // substrings of column names to keep; empty = all
};

enum class Recovery { kUnaffected, kRecovered, kStayedDegraded, kNoBaseline };
const char* to_string(Recovery r);

struct MetricRecovery {
  std::string column;
  Recovery status = Recovery::kUnaffected;
  double mean = 0, sd = 0, band_low = 0, band_high = 0;
  int baseline_rows = 0;
  std::optional<double> left_at_s;      // first row out of band after the trigger began
  std::optional<double> returned_at_s;  // first row of the first in-band run of `hold` rows
  double worst = 0;                     // the value furthest from the band after the start
  double last = 0;                      // value in the last evaluated row
};

struct MetastabilityReport {
  Trigger trigger;
  MetastabilityOptions options;
  std::vector<MetricRecovery> metrics;  // column order
  int count(Recovery r) const;
  Json to_json() const;
  std::string format() const;  // the table people read: affected metrics first
};

// Throws std::invalid_argument when the trigger is outside the series or ends before it starts.
MetastabilityReport analyse_metastability(const TimeSeriesTable& table, const Trigger& trigger,
                                          const MetastabilityOptions& options);

// Column names of the counters in a run's summary.json ("type": "counter"), for
// counters_to_rates. Throws JsonError when there is no "metrics" object.
std::set<std::string> counter_columns(const Json& summary);

}  // namespace skysim::analysis
