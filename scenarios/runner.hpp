#pragma once
// Builds a loaded scenario into a World and runs it: hosts from the registry, Poisson traffic
// sources, the timeline (parameter changes, source start/stop, crashes and restarts), the
// metrics sampler; afterwards the invariants, the summary table and the output files.
// No wall clock in here: the caller measures wall time and draws the progress line.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/model_registry.hpp"
#include "scenarios/scenario.hpp"
#include "sim/group_fingerprint.hpp"
#include "sim/metrics.hpp"
#include "sim/simulation.hpp"

namespace skysim::scenarios {

struct InvariantResult {
  std::string name;
  std::string instance;  // host path, or "" for scenario-wide checks
  std::string error;     // "" = holds
};

// Where a failed invariant first broke, found by replaying the run (ScenarioRun::run does it on
// a failure only, so passing runs pay nothing): the event after which it no longer held.
struct Violation {
  std::string invariant;
  std::string instance;
  std::string error;
  bool at_end = false;      // held at every event; broke only when the hosts settled at the end
  sim::Time at = 0;         // the violating event's simulated time
  std::uint64_t event = 0;  // its number in the run (1-based)
  std::string kind;         // its event kind
  sim::ActorId actor = 0;
};

struct RunResult {
  std::uint64_t fingerprint = 0;
  // "" when the run reached the scenario's end; else why it stopped where it did ("--until
  // 2026-04-06T12:00:00Z", "interrupted (SIGINT)").
  std::string stopped_early;
  // Per model group (event kinds up to the first '.'): sim/group_fingerprint.hpp.
  std::vector<std::pair<std::string, std::uint64_t>> sub_fingerprints;
  // Per datacenter, over its sampled series (scenarios/datacenter_fingerprint.hpp).
  std::vector<std::pair<std::string, std::uint64_t>> datacenter_fingerprints;
  // What the fingerprint cannot see (Simulation::unseed): every stream's draw count and the
  // models' folds, with every metric's end value folded in by the runner.
  std::uint64_t unseed = 0;
  std::vector<std::pair<std::string, std::uint64_t>> stream_draws;  // by stream name
  std::optional<Violation> violation;
  std::uint64_t events = 0;
  // Events per event kind, by kind name (they sum to `events`): where a run's work goes.
  std::vector<std::pair<std::string, std::uint64_t>> events_by_kind;
  sim::Simulation::Stats kernel;  // stale pops, peak pending events, peak frames (docs/kernel.md)
  sim::Time end = 0;  // simulated time reached
  std::vector<InvariantResult> invariants;
  bool invariants_hold() const {
    for (const auto& r : invariants) {
      if (!r.error.empty()) return false;
    }
    return true;
  }
};

// Where a run's outputs came from, for summary.json: the binary, and how the run was asked to
// end. The caller (the command line) knows these; the runner only records them.
struct Provenance {
  std::string version;
  std::string commit;
  std::string build_type;
  std::string until;  // the --until text as given, or ""
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
  // Ends a run() in progress at the end of its current slice (1/200 of the span), as if `until`
  // were there; safe to call from `on_slice`. What was simulated so far is kept and reported.
  void stop_soon(std::string why) { stop_reason_ = std::move(why); }
  // Sets a source's rate (per second, before `scale`) now, exactly as a timeline
  // `sources.NAME.rate` entry does. Returns false when no source has that name.
  bool set_source_rate(const std::string& name, double per_s);
  // Sets a host's parameter now, `written` as a scenario writes it (full size), scaled as the
  // host's were when it was built, exactly as a timeline `set:` does. False when no host has
  // that path.
  bool set_host_param(const std::string& host, const std::string& param,
                      const sim::ParamValue& written);

  // On a failed invariant, run() replays the run to find the event that broke it (up to two
  // more runs, on a failure only). Off for runs steered from outside their scenario (a fork
  // branch changed by advance_to + set), whose replay from the scenario would not be the same.
  void set_locate_violations(bool on) { locate_violations_ = on; }
  // Checks every invariant at the end of each 1/200 of the span while run() goes (default on),
  // so a violation that comes and goes is seen; off: only at the end.
  void set_watch_invariants(bool on) { watch_invariants_ = on; }

  sim::Simulation& sim() { return *sim_; }
  sim::MetricsRegistry& metrics() { return metrics_; }
  const sim::TimeSeriesSampler& sampler() const { return *sampler_; }
  World& world() { return *world_; }
  const Scenario& scenario() const { return scenario_; }

  // Every host's milestones, sorted by time then host path: the phases of the run.
  std::vector<std::pair<std::string, Milestone>> phases() const;

  // summary.json, timeseries.csv, scenario.resolved.yaml into `dir` (created if missing).
  void write_outputs(const std::string& dir, const RunResult& r, double wall_seconds,
                     const Provenance& provenance = {}) const;
  // The human summary printed on stdout.
  std::string summary_table(const RunResult& r, double wall_seconds) const;

 private:
  void schedule_timeline();
  // `ticking`: a mid-run tick, which skips the end-only checks.
  std::vector<InvariantResult> check_invariants(bool ticking = false);
  // The check of one invariant instance, callable at any event (empty when none matches).
  std::function<std::string()> invariant_check(const InvariantResult& which);
  // `stretch_start`: the start of the slice at whose end the run saw it broken (skips the
  // coarse replay).
  Violation locate_violation(const InvariantResult& failed, sim::Time end,
                             std::optional<sim::Time> stretch_start = std::nullopt);
  bool wanted(const std::string& invariant) const;  // in the scenario's list (or no list)
  void watch_invariants(sim::Time slice_start);

  // An invariant instance seen broken at a slice's end during run().
  struct Broken {
    InvariantResult which;
    std::string error;
    sim::Time seen_at = 0;
    sim::Time slice_start = 0;
  };
  std::map<std::pair<std::string, std::string>, Broken> broken_;
  bool watch_invariants_ = true;

  const Scenario& scenario_;
  const Registry& registry_;
  std::unique_ptr<sim::Simulation> sim_;
  std::unique_ptr<sim::GroupFingerprints> groups_;
  sim::MetricsRegistry metrics_;
  std::unique_ptr<World> world_;
  std::vector<std::unique_ptr<SourceDriver>> sources_;
  std::unique_ptr<sim::TimeSeriesSampler> sampler_;
  bool sampler_started_ = false;
  bool locate_violations_ = true;
  bool steered_ = false;  // advance_to or set_source_rate was called before run()
  std::string stop_reason_;  // set by stop_soon()
};

// Lines for the summary: where the invariant broke and the command that stops there.
std::string describe_violation(const Violation& v, const Scenario& s);

// "fingerprint" as printed everywhere: 16 hex digits.
std::string format_fingerprint(std::uint64_t f);

}  // namespace skysim::scenarios
