#pragma once
// From the records of every run of a sweep to the tables a policy decision rests on: per metric
// and variant the mean over seeds, its 95 % confidence interval, the ratio to the first variant
// and whether the two intervals overlap. Output is canonical (rows by variant index, metrics by
// name, fixed number format), so a sharded sweep merges to the same bytes as an unsharded one.
#include <optional>
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
};

struct MetricTable {
  std::string metric;
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

// The tables as text for a terminal, then the failed runs with their reproducers.
std::string format_tables(const Comparison& c);
std::string to_csv(const Comparison& c);
Json to_json(const Comparison& c);

}  // namespace skysim::analysis
