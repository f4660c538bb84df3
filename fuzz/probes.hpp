#pragma once
// Probes: "sometimes" assertions. Each fault kind and each interesting state declares one; a
// campaign counts the seeds that reached it and fails when one expected to fire never did —
// a fault world that never crashes a busy host tests nothing about crashes.
#include <string>
#include <vector>

#include "analysis/json.hpp"
#include "fuzz/perturbation.hpp"

namespace skysim::fuzz {

struct ProbeSpec {
  std::string name;
  std::string evidence;  // one line: what in the run counts as reaching it
  // The swarm knob the probe belongs to, or a prefix of it ("flip:"); "" = none. A campaign
  // whose bases cannot draw that knob (no service has the hook) does not expect the probe.
  std::string knob;
  // The service kinds whose state the probe reads, comma-separated ("" = any): judged only if
  // a base has one of them.
  std::string kind;
  // The counter the fault must raise: the probe counts only when the run's total exceeds the
  // same seed's run without the sampled faults (its baseline), never because the base
  // scenario already does it ("" = a knob-only probe: a burst or flip is the fault itself).
  std::string metric = "";
};

// The probes in report order; every one is expected to fire across an ensemble.
const std::vector<ProbeSpec>& probe_specs();

// Whether a run's perturbation could have drawn the probe's knob (on or off) on a base with
// the probe's service kind.
bool probe_applies(const ProbeSpec& spec, const Perturbation& p);

// Names of the probes one run reached, from its knobs and its summary.json.
std::vector<std::string> probes_reached(const Perturbation& p, const analysis::Json& summary);

// Whether the run's faults caused the probe's evidence: its metric above the baseline's
// (true for a knob-only probe).
bool caused_by_faults(const ProbeSpec& spec, const analysis::Json& run,
                      const analysis::Json& baseline);

// Sum of a metric's counter values over all label sets (0 when absent); `client` filters on
// the client label when not empty.
double metric_total(const analysis::Json& summary, const std::string& name,
                    const std::string& client = "");

}  // namespace skysim::fuzz
