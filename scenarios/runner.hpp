#pragma once
// Builds a loaded scenario into a World and runs it: hosts from the registry, Poisson traffic
// sources, the timeline (parameter changes, source start/stop, crashes and restarts), the
// metrics sampler; afterwards the invariants, the summary table and the output files.
// No wall clock in here: the caller measures wall time and draws the progress line.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/model_registry.hpp"
#include "scenarios/scenario.hpp"
#include "sim/metrics.hpp"
#include "sim/simulation.hpp"

namespace skysim::scenarios {

struct InvariantResult {
  std::string name;
  std::string instance;  // host path, or "" for scenario-wide checks
  std::string error;     // "" = holds
};

struct RunResult {
  std::uint64_t fingerprint = 0;
  std::uint64_t events = 0;
  sim::Time end = 0;  // simulated time reached
  std::vector<InvariantResult> invariants;
  bool invariants_hold() const {
    for (const auto& r : invariants) {
      if (!r.error.empty()) return false;
    }
    return true;
  }
};

class SourceDriver;

class ScenarioRun {
 public:
  // Builds every host and source. Throws ScenarioError if the scenario names an invariant that
  // no host provides.
  ScenarioRun(const Scenario& scenario, const Registry& registry);
  ~ScenarioRun();
  ScenarioRun(const ScenarioRun&) = delete;
  ScenarioRun& operator=(const ScenarioRun&) = delete;

  // Runs to `until` (simulated ns since the epoch; default: the scenario's duration), calling
  // `on_slice` after each 1/200 of the span (for a progress line).
  RunResult run(std::optional<sim::Time> until = std::nullopt,
                const std::function<void(const sim::Simulation&)>& on_slice = {});

  // Runs to `t` and stops there without finishing the run (the sampler starts on first use);
  // a later run() continues from that instant. Counterfactual forks use it: stop at the fork
  // time, fork the process, change settable parameters in each branch, go on.
  void advance_to(sim::Time t);
  // Sets a source's rate (per second, before `scale`) now, exactly as a timeline
  // `sources.NAME.rate` entry does. Returns false when no source has that name.
  bool set_source_rate(const std::string& name, double per_s);

  sim::Simulation& sim() { return *sim_; }
  sim::MetricsRegistry& metrics() { return metrics_; }
  const sim::TimeSeriesSampler& sampler() const { return *sampler_; }
  World& world() { return *world_; }
  const Scenario& scenario() const { return scenario_; }

  // Every host's milestones, sorted by time then host path: the phases of the run.
  std::vector<std::pair<std::string, Milestone>> phases() const;

  // summary.json, timeseries.csv, scenario.resolved.yaml into `dir` (created if missing).
  void write_outputs(const std::string& dir, const RunResult& r, double wall_seconds) const;
  // The human summary printed on stdout.
  std::string summary_table(const RunResult& r, double wall_seconds) const;

 private:
  void schedule_timeline();
  std::vector<InvariantResult> check_invariants();

  const Scenario& scenario_;
  std::unique_ptr<sim::Simulation> sim_;
  sim::MetricsRegistry metrics_;
  std::unique_ptr<World> world_;
  std::vector<std::unique_ptr<SourceDriver>> sources_;
  std::unique_ptr<sim::TimeSeriesSampler> sampler_;
  bool sampler_started_ = false;
};

// "fingerprint" as printed everywhere: 16 hex digits.
std::string format_fingerprint(std::uint64_t f);

}  // namespace skysim::scenarios
