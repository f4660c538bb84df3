// skysim run FILE: validate, build, run, print a summary, write summary.json, timeseries.csv
// and scenario.resolved.yaml. Wall time and the progress line live here, outside the model.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>

#include "app/build_info.hpp"
#include "app/commands.hpp"
#include "app/output_dir.hpp"
#include "app/run_openmetrics.hpp"
#include "app/run_trace.hpp"
#include "analysis/sweep.hpp"
#include "app/run_until.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/units.hpp"

namespace skysim::app {

namespace {

struct RunArgs {
  std::string file;
  std::string seed;
  std::vector<std::string> sets;
  std::string out;
  TraceArgs trace;
  std::string until;
  std::string openmetrics;
  bool quiet = false;
  std::uint64_t max_events = 0;  // 0 = no event budget
};

// The command line that repeats this run: the file, the seed the run used and every --set in
// the order given (a counterfactual without its overrides is another run), plus the event
// budget when one stopped it.
std::string reproducer(const RunArgs& a, std::uint64_t seed) {
  std::string line = "skysim run " + analysis::shell_word(a.file) + " --seed " + std::to_string(seed);
  for (const auto& s : a.sets) line += " --set " + analysis::shell_word(s);
  if (a.max_events > 0) line += " --max-events " + std::to_string(a.max_events);
  return line;
}

// "simulated date, % done, events/s, ETA" redrawn in place on a terminal.
class ProgressLine {
 public:
  ProgressLine(sim::Time end, bool enabled)
      : end_(end), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}
  void update(const sim::Simulation& sim) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200) && sim.now() < end_) return;
    last_ = now;
    double wall = std::chrono::duration<double>(now - start_).count();
    double done = end_ > 0 ? static_cast<double>(sim.now()) / static_cast<double>(end_) : 1.0;
    double eps = wall > 0 ? static_cast<double>(sim.events_executed()) / wall : 0;
    double eta = done > 0 ? wall * (1 - done) / done : 0;
    std::fprintf(stderr, "\r%s  %5.1f%%  %.2f M events/s  ETA %.0fs   ", sim.date().c_str(),
                 100 * done, eps / 1e6, eta);
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_) std::fprintf(stderr, "\n");
  }

 private:
  sim::Time end_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_{};
};

// Ctrl-C ends the run at the next slice with what it has, instead of losing hours of simulation.
volatile std::sig_atomic_t g_interrupted = 0;
void on_sigint(int) { g_interrupted = 1; }

void run_scenario(const RunArgs& a) {
  scenarios::LoadOptions opts;
  if (!a.seed.empty()) {
    try {
      opts.seed = scenarios::parse_seed(a.seed);
    } catch (const scenarios::UnitError& e) {
      throw UsageError("--seed " + a.seed + ": " + e.what() + " (expected " + e.expected() + ")");
    }
  }
  for (const auto& s : a.sets) opts.overrides.push_back(scenarios::parse_override(s));
  scenarios::Scenario scenario =
      scenarios::load_scenario_file(a.file, scenarios::builtin_registry(), opts);
  std::optional<sim::Time> until;
  if (!a.until.empty()) {
    until = parse_until(scenario, a.until);
  }
  // Before the run: a bad --out must not cost the whole simulation.
  std::string out =
      a.out.empty() ? "runs/" + scenario.name + "-" + std::to_string(scenario.seed) : a.out;
  prepare_output_dir(out, "--out");
  scenarios::ScenarioRun run(scenario, scenarios::builtin_registry());
  std::unique_ptr<sim::Tracer> tracer = start_trace(a.trace, run);
  ProgressLine progress(until.value_or(scenario.duration), !a.quiet && isatty(2));
  auto t0 = std::chrono::steady_clock::now();
  g_interrupted = 0;
  auto previous = std::signal(SIGINT, on_sigint);
  scenarios::RunResult r = run.run(until, [&](const sim::Simulation& s) {
    progress.update(s);
    if (g_interrupted) run.stop_soon("interrupted (SIGINT)");
    if (a.max_events > 0 && s.events_executed() > a.max_events) {
      run.stop_soon("event budget of " + std::to_string(a.max_events) + " events spent");
    }
  });
  std::signal(SIGINT, previous);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.finish();
  const BuildInfo& build = build_info();
  run.write_outputs(out, r, wall, {build.version, build.commit, build.build_type, a.until});
  if (!a.openmetrics.empty()) write_run_openmetrics(run, a.openmetrics);
  if (tracer) finish_trace(a.trace, *tracer);
  if (!a.quiet) std::fputs(run.summary_table(r, wall).c_str(), stdout);
  std::printf("fingerprint %s  outputs in %s/\n",
              scenarios::format_fingerprint(r.fingerprint).c_str(), out.c_str());
  if (g_interrupted) {
    std::printf("interrupted at %s (%s simulated): the outputs hold the run so far\n",
                sim::format_iso8601(scenario.epoch_unix_ns + r.end).c_str(),
                sim::format_duration(r.end).c_str());
    throw ExitCode(130);
  }
  if (a.max_events > 0 && r.stopped_early.rfind("event budget", 0) == 0) {
    std::fprintf(stderr, "skysim: %s at %s; reproduce with: %s\n", r.stopped_early.c_str(),
                 sim::format_iso8601(scenario.epoch_unix_ns + r.end).c_str(),
                 reproducer(a, scenario.seed).c_str());
    throw ExitCode(4);
  }
  if (!r.invariants_hold()) {
    std::fprintf(stderr, "skysim: invariant failed; reproduce with: %s\n",
                 reproducer(a, scenario.seed).c_str());
    throw ExitCode(3);
  }
}

}  // namespace

void register_run(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run a scenario");
  auto a = std::make_shared<RunArgs>();  // the callback owns it
  cmd->add_option("scenario", a->file, "Scenario YAML file")->required();
  cmd->add_option("--seed", a->seed, "Root seed, 0 to 2^64-1 (replaces the file's seed)");
  cmd->add_option("--set", a->sets,
                  "Override path=value, paths as the validator prints them (repeatable)");
  cmd->add_option("--out", a->out, "Output directory (default runs/<scenario>-<seed>/)");
  add_trace_options(*cmd, a->trace);
  cmd->add_option("--until", a->until, "Stop early: a date or an offset like 90m");
  cmd->add_option("--openmetrics", a->openmetrics,
                  "Also write the time series as OpenMetrics text at simulated time to FILE");
  cmd->add_flag("--quiet", a->quiet, "No summary table, no progress line");
  cmd->add_option("--max-events", a->max_events,
                  "Event budget: stop after about this many events and exit 4 (checked per 1/200 "
                  "of the span)");
  cmd->callback([a] {
    try {
      run_scenario(*a);
    } catch (const scenarios::ScenarioError& e) {
      for (const auto& d : e.diagnostics()) std::fprintf(stderr, "%s\n", d.to_string().c_str());
      throw ExitCode(2);
    }
  });
}

}  // namespace skysim::app
