#pragma once
// Drives the runs of a sweep through `skysim run` worker processes and turns each run's
// summary.json (or its failure) into a RunRecord.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/run_record.hpp"
#include "analysis/sweep.hpp"

namespace skysim::analysis {

struct RunnerOptions {
  std::string program;   // the skysim binary each worker executes (`PROGRAM run FILE ...`)
  std::string runs_dir;  // each run writes to runs_dir/<run_dir_name>
  int jobs = 1;          // worker processes at once
};

// "v002-seed17": one directory per run, named so `ls` lists them in sweep order per variant.
std::string run_dir_name(const RunSpec& run);

// The worker's command line:
// PROGRAM run SCENARIO --seed N [--set p=v]... [--until T] --out DIR --quiet
std::vector<std::string> worker_argv(const RunnerOptions& opt, const SweepSpec& spec,
                                     const RunSpec& run);

// Runs `runs` (a subset of spec.runs(), e.g. one shard) and returns one record per run in the
// order given. A run fails when its worker exits non-zero or leaves no readable summary.json.
// `progress`, when non-null, gets one line per finished run. `check_first`, when set, is called
// with the record of runs[0] as soon as that run succeeds, while the others still run: when it
// throws, the running workers are killed, no more are started and the exception propagates
// (compare checks --metric names there instead of after the whole sweep).
std::vector<RunRecord> execute_runs(
    const SweepSpec& spec, const std::vector<RunSpec>& runs, const RunnerOptions& opt,
    std::ostream* progress, const std::function<void(const RunRecord&)>& check_first = {});

// Reads DIR/summary.json into `record` (metrics, fingerprint). Throws JsonError / runtime_error.
void read_summary(const std::string& dir, RunRecord& record);

std::string read_file_text(const std::string& path);  // throws std::runtime_error naming path
void write_file_text(const std::string& path, const std::string& text);

}  // namespace skysim::analysis
