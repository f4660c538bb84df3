#pragma once
// `skysim compare` and `skysim merge` as library calls (app/ only parses the command line).
// Both end in the same place: the run records, serialised as JSON lines and read back, become
// the comparison — so a merged set of shards prints and writes the same bytes as one big run.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "analysis/comparison.hpp"
#include "analysis/sweep.hpp"

namespace skysim::analysis {

struct CompareOptions {
  SweepSpec spec;
  int jobs = 1;
  std::optional<Shard> shard;       // run only this shard and write its JSON lines
  std::string out_dir;              // created if absent
  std::vector<std::string> series;  // time-series columns to overlay by variant
  std::string program;              // the skysim binary for workers; empty = this executable
  bool plots = true;
  bool progress = false;            // one line per finished run on `err`
  // Written into the runs file's header so merge can refuse shards of another build or
  // scenario file: digests of the worker program and the scenario ("xxh64:..."), from app/.
  std::string build_id;
  std::string scenario_hash;
};

struct MergeOptions {
  std::vector<std::string> files;  // shard files or a compare's runs.jsonl
  std::string out_dir;
  bool plots = true;
  // --metric: tabulate these instead of the metrics the shards were run with (every run
  // record carries all of its run's metrics); empty = as the shards say.
  std::vector<std::string> metrics;
};

// Exit status: 0 when every run succeeded, 1 when any failed (the failures are listed with
// their reproducers). Sharded, the same holds for the shard's own runs.
int run_compare(const CompareOptions& opt, std::ostream& out, std::ostream& err);

// Throws std::invalid_argument, before any run starts, when a variant needs 2+ seeds it does
// not have; and, when spec.metrics names a metric the first run does not report, as soon as
// that run ends (the running workers are stopped).

// Combines shard files (JSON lines) into the outputs and exit status of the unsharded compare.
// Throws std::invalid_argument when the files describe different sweeps, come from different
// builds or scenario files, or runs are missing or repeated.
int run_merge(const MergeOptions& opt, std::ostream& out, std::ostream& err);

// File names inside an output directory.
inline constexpr const char* kRunsFile = "runs.jsonl";
std::string shard_file_name(const Shard& s);  // "shard-2-of-3.jsonl"

}  // namespace skysim::analysis
