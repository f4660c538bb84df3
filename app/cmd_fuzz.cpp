// skysim fuzz [--scenarios a.yaml,b.yaml] --seeds A..B [--jobs N] [--shard i/n] [--budget 10m]
//   [--out DIR]: seeded fault worlds over the base scenarios; the work is in fuzz/campaign.hpp.
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "analysis/sweep.hpp"
#include "analysis/worker_pool.hpp"
#include "app/commands.hpp"
#include "fuzz/campaign.hpp"
#include "fuzz/event_log.hpp"
#include "fuzz/seed_sources.hpp"
#include "app/build_info.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/units.hpp"

namespace skysim::app {

namespace {

// The base scenarios that each run in well under a second (docs/fuzzing.md has the timings).
const char* const kFastScenarios = "scenarios/demo.yaml,scenarios/validation-mmck.yaml";

struct FuzzArgs {
  std::string scenarios = kFastScenarios;
  std::string seeds;
  int jobs = 1;
  std::string shard;
  std::string budget;
  std::string out = "runs/fuzz";
  double recheck = 0.05;
  int shrink_max = 3;
  int min_probe_runs = 20;
  int run_cpu_seconds = 300;
  std::uint64_t run_max_events = 0;
  std::string only_invariant;
  bool first_failure = false;
  std::string liveness;
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

void fuzz(const FuzzArgs& a) {
  fuzz::FuzzOptions o;
  try {
    fuzz::SeedList seeds = fuzz::expand_seed_sources(a.seeds, build_info().commit);
    o.seeds = std::move(seeds.seeds);
    std::cout << "seeds: " << seeds.described << "\n";
    if (!a.shard.empty()) o.shard = analysis::parse_shard(a.shard);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  o.scenarios = split_commas(a.scenarios);
  for (const auto& f : o.scenarios) {
    if (!std::filesystem::exists(f)) throw UsageError("fuzz: no such scenario file: " + f);
  }
  if (a.jobs < 1) throw UsageError("fuzz: --jobs must be at least 1");
  if (a.recheck < 0 || a.recheck > 1) throw UsageError("fuzz: --recheck must be in [0, 1]");
  if (!a.budget.empty()) {
    try {
      o.budget_seconds = sim::to_seconds(scenarios::parse_duration(a.budget));
    } catch (const scenarios::UnitError& e) {
      throw UsageError("fuzz: --budget: " + std::string(e.what()));
    }
  }
  o.jobs = a.jobs;
  o.out = a.out;
  o.recheck_fraction = a.recheck;
  o.shrink_max = a.shrink_max;
  o.min_probe_runs = a.min_probe_runs;
  if (a.run_cpu_seconds < 0) throw UsageError("fuzz: --run-cpu-limit must be >= 0");
  o.run_cpu_seconds = a.run_cpu_seconds;
  o.run_max_events = a.run_max_events;
  o.only_invariant = a.only_invariant;
  o.first_failure = a.first_failure;
  if (!a.liveness.empty()) {
    try {
      o.liveness = scenarios::parse_duration(a.liveness);
    } catch (const scenarios::UnitError& e) {
      throw UsageError("--liveness " + a.liveness + ": " + e.what() + " (expected " +
                       e.expected() + ")");
    }
    if (*o.liveness <= 0) throw UsageError("--liveness " + a.liveness + ": must be > 0");
  }
  o.skysim = analysis::self_executable();
  fuzz::CampaignResult r = fuzz::run_campaign(o, std::cout);
  if (r.exit_code != 0) throw ExitCode(r.exit_code);
}

struct RecordArgs {
  std::string file;
  std::uint64_t seed = 0;
  std::string events;
};

// The diagnosis re-run of the determinism contract: the same run as `skysim run FILE --seed N`,
// with every event logged (fuzz/event_log.hpp). Only fuzz calls it, after a fingerprint mismatch.
void record(const RecordArgs& a) {
  scenarios::LoadOptions opts;
  opts.seed = a.seed;
  auto scenario = scenarios::load_scenario_file(a.file, scenarios::builtin_registry(), opts);
  scenarios::ScenarioRun run(scenario, scenarios::builtin_registry());
  fuzz::EventLog log(run.sim());
  scenarios::RunResult r = run.run();
  log.write_file(a.events);
  std::printf("fingerprint %s  %zu events logged to %s\n",
              scenarios::format_fingerprint(r.fingerprint).c_str(), log.records().size(),
              a.events.c_str());
}

}  // namespace

void register_fuzz(CLI::App& app) {
  auto* rec = app.add_subcommand("fuzz-record", "");  // internal: no help entry
  rec->group("");
  auto ra = std::make_shared<RecordArgs>();  // the callback owns it
  rec->add_option("scenario", ra->file, "Scenario YAML file")->required();
  rec->add_option("--seed", ra->seed, "Root seed")->required();
  rec->add_option("--events", ra->events, "Event log to write")->required();
  rec->callback([ra] {
    try {
      record(*ra);
    } catch (const scenarios::ScenarioError& e) {
      for (const auto& d : e.diagnostics()) std::fprintf(stderr, "%s\n", d.to_string().c_str());
      throw ExitCode(2);
    }
  });

  auto* cmd = app.add_subcommand("fuzz", "Run seeded fault worlds and check every invariant");
  auto a = std::make_shared<FuzzArgs>();  // the callback owns it
  cmd->add_option("--scenarios", a->scenarios, "Base scenarios, comma-separated")
      ->default_str(kFastScenarios);
  cmd->add_option("--seeds", a->seeds,
                  "Fuzz seeds: 1..200, 7, 1,5,9; @FILE (pinned, with reasons); fresh:N (from "
                  "the commit); mixed: @tests/fuzz/regressions.txt,fresh:2000")
      ->required();
  cmd->add_option("--jobs", a->jobs, "Worker processes at once (default 1)");
  cmd->add_option("--shard", a->shard, "Run only shard i of n (1-based): 2/4");
  cmd->add_option("--budget", a->budget, "Stop starting runs after this wall time: 10m");
  cmd->add_option("--out", a->out, "Output directory (default runs/fuzz)");
  cmd->add_option("--recheck", a->recheck, "Share of runs re-run for determinism (0.05)");
  cmd->add_option("--shrink-max", a->shrink_max, "Failing runs to shrink (default 3)");
  cmd->add_option("--run-cpu-limit", a->run_cpu_seconds,
                  "CPU seconds per run before it is killed and reported (default 300; 0 = none)");
  cmd->add_option("--run-max-events", a->run_max_events,
                  "Event budget per run (skysim run --max-events; default none)");
  cmd->add_option("--min-probe-runs", a->min_probe_runs,
                  "Judge probes only on at least this many runs (default 20)");
  cmd->add_option("--only-invariant", a->only_invariant,
                  "Count a run as failing only when this invariant fails (and shrink for it)");
  cmd->add_flag("--first-failure", a->first_failure,
                "Stop starting runs once one has failed (seeds to first failure)");
  cmd->add_option("--liveness", a->liveness,
                  "Liveness mode: after the last fault ends, back in the healthy band within "
                  "this time (e.g. 30s), else the run is metastable");
  cmd->callback([a] {
    try {
      fuzz(*a);
    } catch (const scenarios::ScenarioError& e) {
      for (const auto& d : e.diagnostics()) std::fprintf(stderr, "%s\n", d.to_string().c_str());
      throw ExitCode(2);
    }
  });
}

}  // namespace skysim::app
