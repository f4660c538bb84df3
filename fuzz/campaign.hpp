#pragma once
// A fuzz campaign: for every (base scenario, seed) in the shard, draw a fault world, run it as
// a `skysim run` worker process with every invariant on, collect failures, probes and
// fingerprints; re-run a sample to hold the determinism contract; shrink the failures.
// Wall time here only bounds the campaign (--budget); it never reaches a simulation.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/sweep.hpp"
#include "fuzz/perturbation.hpp"

namespace skysim::fuzz {

struct FuzzOptions {
  std::vector<std::string> scenarios;
  std::vector<std::uint64_t> seeds;
  int jobs = 1;
  analysis::Shard shard;
  std::optional<double> budget_seconds;  // stop starting runs after this much wall time
  std::string out = "runs/fuzz";
  double recheck_fraction = 0.05;  // share of runs re-run for the determinism contract
  int shrink_max = 3;              // failing runs to shrink (the first ones in run order)
  int min_probe_runs = 20;         // probes are judged only on ensembles at least this big
  std::string skysim;              // the executable the workers run
  // Per-run limits, so one hung run fails with its seed instead of stalling the campaign:
  // CPU seconds (ulimit -t: the kernel kills a run stuck even inside one event) and
  // events (skysim run --max-events, exit 4). 0 = none.
  int run_cpu_seconds = 300;
  std::uint64_t run_max_events = 0;
  // Only this invariant counts as a failure (others are ignored), and shrinking keeps it
  // failing: the planted-bug table finds and shrinks one bug at a time. "" = any.
  std::string only_invariant;
  bool first_failure = false;  // stop starting runs once a run has failed
  // Liveness mode (fuzz/liveness.hpp): the time allowed, after the last fault ends, to return
  // to the healthy band; a run still out of it fails as "liveness" (metastable). None = off.
  std::optional<sim::Duration> liveness;
};

struct RunOutcome {
  std::size_t index = 0;  // place in the unsharded campaign order (scenario-major, then seed)
  std::string scenario;   // base file
  std::uint64_t seed = 0;
  Perturbation perturbation;
  std::string yaml_path;
  std::string run_dir;
  bool ran = false;
  bool failed = false;
  std::string invariant;      // first failing invariant, or "exit N" when the run itself failed
  std::string detail;         // instance and message
  std::string simulated_end;  // the violating event's time when the run located it
  std::string stop_at;        // that time, for `skysim run ... --until` (empty: not located)
  std::string fingerprint;
  std::vector<std::string> probes;
  std::string liveness;  // liveness mode: the verdict's one line ("" = not judged)
  bool liveness_judged = false;
};

struct CampaignResult {
  std::vector<RunOutcome> runs;  // the shard's runs that were started, in campaign order
  std::size_t skipped = 0;       // not started because the budget ran out
  int exit_code = 0;             // 0 all good, 1 failure / missing probe / nondeterminism
};

CampaignResult run_campaign(const FuzzOptions& options, std::ostream& report);

// The double-run's comparison of two run directories' out/summary.json beyond the fingerprint:
// "" when they agree, else the first difference — for an unseed mismatch the first stream whose
// draw count differs ("unseed \"…\" then \"…\": stream NAME drew A then B words").
std::string first_metric_difference(const std::string& a_dir, const std::string& b_dir);

}  // namespace skysim::fuzz
