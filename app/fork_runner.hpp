#pragma once
// The scenario side of `skysim compare --fork-at DATE` (the plan, the fork loop and the reading
// back are analysis/fork.hpp): which overrides may take effect mid-run, and the seed worker
// that runs the shared prefix once and forks one branch per variant.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/fork.hpp"
#include "scenarios/scenario.hpp"

namespace skysim::app {

// One change a branch makes at the fork instant.
struct ForkChange {
  enum class Kind { HostParam, SourceRate } kind = Kind::HostParam;
  std::string override_path;  // the --set path it comes from (for messages)
  std::string target;         // host path "east/web/0" or source name
  std::string param;          // HostParam
  sim::ParamValue value;      // HostParam; SourceRate uses value.number (per second)
};

// The fork instant (ns since the epoch) from an ISO date or an offset; throws
// std::invalid_argument unless it lies strictly inside the scenario's span.
sim::Time fork_time(const scenarios::Scenario& base, const std::string& fork_at);

// The changes `overrides` make at the fork, resolved against `scenario_file` loaded with `seed`
// and the sweep's `base` --set values (which hold from time 0 and are not changes at the fork).
// Only model parameters declared settable (datacenters.DC.services.SVC.params.NAME, or
// ...host_overrides.I.NAME) and source rates (sources.NAME.rate) can change mid-run; anything
// else throws std::invalid_argument naming the path. `resolved_yaml`, when non-null, gets the
// variant's scenario.resolved.yaml text.
std::vector<ForkChange> resolve_fork_changes(const std::string& scenario_file, std::uint64_t seed,
                                             const std::vector<analysis::Override>& base,
                                             const std::vector<analysis::Override>& overrides,
                                             std::string* resolved_yaml = nullptr);

// Checks every variant of a forked sweep before any run starts (compare's early error).
void check_fork_sweep(const analysis::SweepSpec& spec);

// The seed worker: runs the prefix to the fork instant, forks every branch, writes each
// branch's outputs and its branch.exit. Returns 0 when every branch exited 0.
int run_fork_plan(const analysis::ForkPlan& plan);

}  // namespace skysim::app
