#pragma once
// What `skysim run --trace` records of a scenario (docs/tracing.md): the --trace-filter
// grammar, and the host process tracks with their key gauges as counter tracks.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/runner.hpp"
#include "sim/trace.hpp"

namespace skysim::scenarios {

// Every category a model records, in the order the docs list them.
const std::vector<std::string>& trace_categories();

struct TraceSelection {
  std::set<std::string> categories;        // empty: all
  std::vector<std::string> host_prefixes;  // empty: all hosts
};

// "rpc,gc,east/": a comma-separated list of terms; a term that names a category selects it,
// any other must be the start of at least one host path in `hosts` and selects those hosts.
// Categories OR together, host prefixes OR together, the two AND. Throws std::invalid_argument
// naming the bad term and what it could have been.
TraceSelection parse_trace_filter(std::string_view text, const std::vector<std::string>& hosts);

// The paths of the scenario's hosts, sorted.
std::vector<std::string> host_paths(ScenarioRun& run);

// Gives every selected host its process track (so an idle host is listed too) and adds its key
// gauges (threads, goroutines, heap, RSS, TIME_WAIT sockets, ...) as counters; scenario-wide
// gauges (requests in flight per client) go to a "clients" process.
void trace_scenario(ScenarioRun& run, sim::Tracer& tracer);

}  // namespace skysim::scenarios
