// `skysim run --trace FILE` and its selection options (docs/tracing.md): builds the tracer
// before the run, writes the file after it and warns on stdout when the cap dropped events.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "scenarios/runner.hpp"
#include "sim/trace.hpp"

namespace skysim::app {

struct TraceArgs {
  std::string file;    // "" = no trace
  std::string from;    // date or offset, as --until takes them
  std::string until;
  std::string filter;  // categories and host prefixes (scenarios::parse_trace_filter)
  std::uint64_t max_events = sim::Tracer::Options{}.max_events;
};

void add_trace_options(CLI::App& cmd, TraceArgs& a);

// The tracer for `run` (null without --trace). Throws UsageError on a bad option.
std::unique_ptr<sim::Tracer> start_trace(const TraceArgs& a, scenarios::ScenarioRun& run);

// Writes the file; prints what was recorded, and a warning with the way out when the cap or the
// lane bound left events out.
void finish_trace(const TraceArgs& a, const sim::Tracer& tracer);

}  // namespace skysim::app
