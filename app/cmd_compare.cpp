// skysim compare SCENARIO --vary path=a,b --seeds 1..32 [--set path=v]... [--until T]
//   [--jobs N] [--metric NAME]... [--series NAME]... [--out DIR] [--shard i/n] [--fork-at DATE]
// Runs variants x seeds as `skysim run` worker processes and prints a table per metric; the
// work is in analysis/compare_command.hpp. Here: the checks that need the scenario loader, so
// a misspelt path or date fails before the first run instead of in every run.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "analysis/compare_command.hpp"
#include "analysis/fork.hpp"
#include "analysis/sweep_runner.hpp"
#include "app/commands.hpp"
#include "app/fork_runner.hpp"
#include "app/provenance.hpp"
#include "app/run_until.hpp"
#include "scenarios/loader.hpp"

namespace skysim::app {

namespace {

// Every variant, with the sweep's --set values, loads through the scenario loader: unknown
// paths (with its "did you mean"), bad values and a bad --until are reported here, for all
// variants at once, before any worker starts.
void check_variants_load(const analysis::SweepSpec& spec) {
  bool failed = false;
  for (const auto& v : spec.variants()) {
    scenarios::LoadOptions opts;
    for (const auto& [path, value] : spec.run_overrides(v.index)) {
      opts.overrides.push_back({path, value});
    }
    try {
      auto scenario = scenarios::load_scenario_file(spec.scenario, scenarios::builtin_registry(),
                                                    opts);
      if (!spec.until.empty() && v.index == 0) {
        parse_until(scenario, spec.until);
      }
    } catch (const scenarios::ScenarioError& e) {
      std::fprintf(stderr, "compare: variant %s does not load:\n", v.label().c_str());
      for (const auto& d : e.diagnostics()) {
        std::fprintf(stderr, "  %s\n", d.to_string().c_str());
      }
      failed = true;
    }
  }
  if (failed) {
    std::fprintf(stderr, "compare: nothing was run\n");
    throw ExitCode{2};
  }
}

struct CompareArgs {
  std::string scenario;
  std::vector<std::string> vary;
  std::vector<std::string> variants;
  std::vector<std::string> sets;
  std::string until;
  std::string seeds;
  int jobs = 0;
  std::vector<std::string> metrics;
  std::vector<std::string> series;
  std::string out;
  std::string shard;
  std::string runner;
  std::string fork_at;
  bool no_plots = false;
};

void compare(const CompareArgs& a) {
  analysis::CompareOptions opt;
  try {
    opt.spec.scenario = a.scenario;
    for (const auto& v : a.vary) {
      opt.spec.vary.push_back(analysis::parse_vary(v));
      for (std::size_t i = 0; i + 1 < opt.spec.vary.size(); ++i) {
        if (opt.spec.vary[i].path == opt.spec.vary.back().path) {
          throw std::invalid_argument("--vary " + v + ": " + opt.spec.vary[i].path +
                                      " is already varied");
        }
      }
    }
    if (!a.variants.empty() && !a.vary.empty()) {
      throw std::invalid_argument("--variant and --vary do not mix: name every variant, or vary");
    }
    for (const auto& v : a.variants) {
      opt.spec.named.push_back(analysis::parse_variant(v));
      for (std::size_t i = 0; i + 1 < opt.spec.named.size(); ++i) {
        if (opt.spec.named[i].name == opt.spec.named.back().name) {
          throw std::invalid_argument("--variant " + v + ": the name " +
                                      opt.spec.named[i].name + " is already used");
        }
      }
    }
    for (const auto& text : a.sets) {
      auto eq = text.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw std::invalid_argument("--set " + text + ": expected path=value");
      }
      opt.spec.sets.emplace_back(text.substr(0, eq), text.substr(eq + 1));
    }
    opt.spec.until = a.until;
    opt.spec.seeds = analysis::parse_seeds(a.seeds);
    opt.spec.metrics = a.metrics;
    if (!a.shard.empty()) {
      opt.shard = analysis::parse_shard(a.shard);
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (!std::filesystem::exists(a.scenario)) {
    throw UsageError("compare: no such scenario file: " + a.scenario);
  }
  if (!a.fork_at.empty()) {
    // Every variant must be able to take effect mid-run: say so before any run starts.
    opt.spec.fork_at = a.fork_at;
    try {
      check_fork_sweep(opt.spec);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("compare: ") + e.what());
    }
  }
  // A stand-in --runner reads its own scenario format; the loader only speaks for skysim's.
  if (a.runner.empty()) {
    check_variants_load(opt.spec);
  }
  if (a.jobs < 0) {
    throw UsageError("--jobs must be at least 1 (0 = one per CPU), got " +
                     std::to_string(a.jobs));
  }
  // Default: one worker per CPU; each run is single-threaded by design.
  opt.jobs = a.jobs > 0 ? a.jobs : std::max(1, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
  opt.out_dir = a.out.empty()
                    ? "compare-" + std::filesystem::path(a.scenario).stem().string()
                    : a.out;
  opt.series = a.series;
  opt.program = a.runner;
  opt.plots = !a.no_plots;
  opt.progress = ::isatty(STDERR_FILENO) != 0;
  opt.build_id = file_digest(a.runner.empty() ? analysis::self_executable() : a.runner);
  opt.scenario_hash = file_digest(a.scenario);
  int status = 0;
  try {
    status = analysis::run_compare(opt, std::cout, std::cerr);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // a --metric the first run does not report, too few seeds
  }
  std::cout.flush();
  if (status != 0) {
    throw ExitCode{status};
  }
}

}  // namespace

void register_compare(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "compare",
      "Run variants x seeds in parallel worker processes; per metric: mean and 95% CI per "
      "variant, and a paired t-test of each variant against the first on the per-seed "
      "differences (same seeds for every variant)");
  auto a = std::make_shared<CompareArgs>();  // the callback owns it
  cmd->add_option("scenario", a->scenario, "Scenario YAML file")->required();
  cmd->add_option("--variant", a->variants,
                  "\"name: path=v path2=w\": a named variant changing several parameters; "
                  "the first is the baseline (repeatable; replaces --vary)");
  cmd->add_option("--vary", a->vary,
                  "path=a,b,c: one parameter and its values (repeatable; cross product)");
  cmd->add_option("--set", a->sets,
                  "path=value for every run, before the variant's own values (repeatable)");
  cmd->add_option("--until", a->until, "Every run stops here: a date or an offset like 90m");
  cmd->add_option("--seeds", a->seeds,
                  "Seeds, the same for every variant (paired test; 2+ to compare): 1..32, "
                  "1..4,9")
      ->required();
  cmd->add_option("--jobs,-j", a->jobs, "Worker processes at once (default: CPUs)");
  cmd->add_option("--metric", a->metrics,
                  "Only this metric (repeatable; default: all); checked against the first "
                  "run's report as soon as it ends");
  cmd->add_option("--series", a->series,
                  "Plot this timeseries.csv column, variants overlaid (repeatable)");
  cmd->add_option("--out", a->out, "Output directory (default compare-<scenario>)");
  cmd->add_option("--shard", a->shard,
                  "i/n: run only runs with index = i-1 mod n; write JSON lines for merge");
  cmd->add_option("--runner", a->runner,
                  "Program each worker runs as `PROGRAM run ...` (default: this skysim)");
  cmd->add_option("--fork-at", a->fork_at,
                  "DATE or offset: run the as-was prefix once per seed, then fork each variant "
                  "there (only settable params and source rates may vary)");
  cmd->add_flag("--no-plots", a->no_plots, "Skip the gnuplot plots");
  cmd->callback([a] { compare(*a); });

  // compare's own seed worker for --fork-at (analysis/fork.hpp); not for people, so hidden.
  auto* branches = app.add_subcommand(analysis::kForkWorkerCommand,
                                      "Run a fork plan written by compare --fork-at");
  branches->group("");
  auto plan = std::make_shared<std::string>();  // the callback owns it
  branches->add_option("plan", *plan, "PLAN.json")->required();
  branches->callback([plan] {
    analysis::ForkPlan p =
        analysis::ForkPlan::from_json(analysis::Json::parse(analysis::read_file_text(*plan)));
    int status = run_fork_plan(p);
    std::fflush(stdout);
    if (status != 0) {
      throw ExitCode{status};
    }
  });
}

}  // namespace skysim::app
