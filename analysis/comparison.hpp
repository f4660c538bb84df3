#pragma once
// From the records of every run of a sweep to the tables a policy decision rests on: per metric
// and variant the mean over seeds, its 95 % confidence interval, the ratio to the first variant
// and whether the two intervals overlap. Output is canonical (rows by variant index, metrics by
// name, fixed number format), so a sharded sweep merges to the same bytes as an unsharded one.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/json.hpp"
#include "analysis/run_record.hpp"
#include "analysis/stats.hpp"
#include "analysis/sweep.hpp"

namespace skysim::analysis {

struct MetricRow {
  int variant = 0;
  std::string label;
  SampleSummary summary;       // n == 0 when no run of the variant reported the metric
  double ratio_to_first = 0;   // NaN when undefined (first variant's mean 0 or missing)
  bool overlaps_first = true;  // the first variant's own row overlaps itself
  // This variant minus the first, seed by seed (the verdict "vs first"); absent for the first
  // row and when fewer than 2 seeds have the metric in both variants.
  std::optional<PairedDifference> paired;
};

struct MetricTable {
  std::string metric;
  std::string unit;  // metric_unit(metric); empty when the name does not say
  std::vector<MetricRow> rows;
  // Least-squares trend of the metric on the varied parameter, when exactly one parameter is
  // varied and all its values are numbers.
  std::optional<LinearFit> trend;
};

struct FailedRun {
  RunSpec run;
  std::string label;
  std::string failure;
  std::string reproducer;
};

struct Comparison {
  SweepSpec spec;
  int runs_total = 0;
  int runs_ok = 0;
  std::vector<MetricTable> tables;
  std::vector<FailedRun> failures;

  int exit_status() const { return failures.empty() ? 0 : 1; }
};

// Needs exactly one record per run of the sweep (throws std::invalid_argument naming the
// missing or duplicated runs otherwise). A metric named in spec.metrics that no successful run
// reported is an error that lists the metrics the runs do report.
Comparison compare_runs(const SweepSpec& spec, std::vector<RunRecord> records);

// The unit a metric's name declares by the project's naming convention: "ns" for *_ns,
// "bytes" for *_bytes, "fraction" for *_fraction, "s"/"ms" for *_s/*_ms, "count" for a
// histogram's .count; empty otherwise (a counter's or gauge's name does not say).
std::string metric_unit(const std::string& metric);

// Throws std::invalid_argument when a name in `wanted` is not in `reported`, with the closest
// reported names ("did you mean ...?"). `source` says which runs reported (for the message).
void check_metric_names(const std::vector<std::string>& wanted,
                        const std::set<std::string>& reported, const std::string& source);

// The tables as text for a terminal, then the failed runs with their reproducers.
std::string format_tables(const Comparison& c);
std::string to_csv(const Comparison& c);
Json to_json(const Comparison& c);

}  // namespace skysim::analysis
