#pragma once
// Counterfactual forks (`skysim compare --fork-at DATE`): per seed, one worker process runs the
// shared prefix — the as-was scenario up to DATE — once, then fork()s the OS process once per
// variant. Every branch starts from the same memory image (simulation state, RNG streams,
// pending events), applies its variant's overrides at that instant and runs to the end, writing
// its outputs into the runs/v003-seed17 directory a from-the-start compare run would use, so the
// tables and plots downstream are unchanged.
//
// This file holds what needs no scenario code: the plan handed to each seed's worker, the
// fork-and-wait loop, and reading the branches back as RunRecords. The worker that builds the
// simulation is app/fork_runner.cpp (hidden subcommand `skysim compare-branches PLAN`).
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/json.hpp"
#include "analysis/run_record.hpp"
#include "analysis/sweep.hpp"
#include "analysis/sweep_runner.hpp"
#include "analysis/worker_pool.hpp"

namespace skysim::analysis {

inline constexpr const char* kForkWorkerCommand = "compare-branches";
// Left by the seed worker in each branch directory: the branch child's exit, "exit 0" etc.
inline constexpr const char* kBranchExitFile = "branch.exit";

struct ForkBranch {
  RunSpec run;
  std::vector<Override> overrides;  // the variant's --set list, applied at the fork instant
  std::string dir;                  // where the branch writes summary.json & co.
};

// Everything one seed's worker needs, written as JSON next to the runs.
struct ForkPlan {
  std::string scenario;
  std::uint64_t seed = 0;
  std::string fork_at;  // as the user gave it: ISO date or offset from the epoch
  int jobs = 1;         // branches running at once inside this worker
  std::vector<Override> sets;  // the sweep's --set: part of the as-was run, from time 0
  std::string until;           // the sweep's --until: where every branch stops; empty = end
  std::vector<ForkBranch> branches;

  Json to_json() const;
  static ForkPlan from_json(const Json& j);  // throws JsonError naming the bad field
};

// One plan per seed present in `runs`, in order of first appearance. `jobs` (total processes
// at once) is shared out: seed workers run min(jobs, seeds) at a time, and each lets
// max(1, jobs / seeds) of its branches run at once.
std::vector<ForkPlan> fork_plans(const SweepSpec& spec, const std::vector<RunSpec>& runs,
                                 const std::string& runs_dir, int jobs);

// Like execute_runs, for a sweep with spec.fork_at set: one worker per seed
// (`PROGRAM compare-branches PLAN.json`), then one record per run in the order given. A branch
// fails when its child exited non-zero, left no summary, or when branches of one seed disagree
// on the prefix fingerprint (which would mean the prefix was not shared).
std::vector<RunRecord> execute_forked_runs(const SweepSpec& spec, const std::vector<RunSpec>& runs,
                                           const RunnerOptions& opt, std::ostream* progress);

// In a process whose memory holds the shared prefix: fork one child per branch, at most
// `parallelism` at once; child i sends stdout/stderr to log_paths[i], runs body(i) and exits
// with its return value (an exception becomes a line on stderr and exit 1). The child never
// returns into the caller and never runs the parent's destructors or atexit handlers.
// Returns the exits in branch order. Throws std::system_error when fork fails.
std::vector<WorkerExit> fork_branches(std::size_t count, int parallelism,
                                      const std::vector<std::string>& log_paths,
                                      const std::function<int(std::size_t)>& body);

// The "fork" member a branch adds to its summary.json, inserted before the final '}' so the
// rest of the file keeps the exact bytes of a normal run. Throws std::runtime_error when the
// file does not end in a JSON object.
void add_fork_to_summary(const std::string& summary_path, const Json& fork);

}  // namespace skysim::analysis
