#include "app/run_trace.hpp"

#include <cstdio>
#include <stdexcept>

#include "app/commands.hpp"
#include "scenarios/trace_setup.hpp"
#include "scenarios/units.hpp"

namespace skysim::app {
namespace {

// A date or an offset from the epoch, as simulated ns inside the scenario's span.
sim::Time instant_option(const char* option, const std::string& text,
                         const scenarios::Scenario& s) {
  std::int64_t t = 0;
  try {
    t = scenarios::parse_date_or_offset(text, s.epoch_unix_ns);
  } catch (const scenarios::UnitError& e) {
    throw UsageError(std::string(option) + ": " + e.what() + " (expected " + e.expected() + ")");
  }
  if (t < s.epoch_unix_ns || t - s.epoch_unix_ns > s.duration) {
    throw UsageError(std::string(option) + " " + text + " is outside the scenario's span");
  }
  return t - s.epoch_unix_ns;
}

}  // namespace

void add_trace_options(CLI::App& cmd, TraceArgs& a) {
  cmd.add_option("--trace", a.file, "Write a Perfetto/Chrome trace-event JSON file");
  cmd.add_option("--trace-from", a.from,
                 "Trace only from this date or offset like 90m (default: the start)");
  cmd.add_option("--trace-until", a.until,
                 "Trace only until this date or offset (default: the end)");
  cmd.add_option("--trace-filter", a.filter,
                 "Comma-separated categories (rpc, goroutine, go, syscall, gc, memcached, net, "
                 "scylla, log, fanout, counter, sim) and host-path prefixes (east/) to trace "
                 "(docs/tracing.md)");
  cmd.add_option("--trace-max-events", a.max_events,
                 "Stop recording after this many trace events (default 700000, under 100 MB)");
}

std::unique_ptr<sim::Tracer> start_trace(const TraceArgs& a, scenarios::ScenarioRun& run) {
  if (a.file.empty()) {
    if (!a.from.empty() || !a.until.empty() || !a.filter.empty()) {
      throw UsageError("--trace-from, --trace-until and --trace-filter need --trace FILE");
    }
    return nullptr;
  }
  const scenarios::Scenario& s = run.scenario();
  sim::Tracer::Options o;
  if (a.max_events == 0) throw UsageError("--trace-max-events must be at least 1");
  o.max_events = a.max_events;
  if (!a.from.empty()) o.from = instant_option("--trace-from", a.from, s);
  if (!a.until.empty()) o.until = instant_option("--trace-until", a.until, s);
  if (o.until < o.from) {
    throw UsageError("--trace-until " + a.until + " is before --trace-from " + a.from);
  }
  if (!a.filter.empty()) {
    try {
      scenarios::TraceSelection sel =
          scenarios::parse_trace_filter(a.filter, scenarios::host_paths(run));
      o.categories = std::move(sel.categories);
      o.host_prefixes = std::move(sel.host_prefixes);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--trace-filter: ") + e.what());
    }
  }
  // Kernel events as instants only when asked for: they would fill the cap first.
  o.kernel_events = o.categories.count("sim") != 0 ? sim::Tracer::KernelEvents::kInstants
                                                   : sim::Tracer::KernelEvents::kCountOnly;
  auto tracer = std::make_unique<sim::Tracer>(run.sim(), std::move(o));
  scenarios::trace_scenario(run, *tracer);
  return tracer;
}

void finish_trace(const TraceArgs& a, const sim::Tracer& tracer) {
  tracer.write_file(a.file);
  std::printf("trace        %s: %zu events\n", a.file.c_str(), tracer.recorded());
  if (tracer.dropped() > 0) {
    std::printf(
        "warning: the trace reached its cap of %zu events and dropped %llu more (what came later "
        "is missing); narrow it with --trace-from/--trace-until or --trace-filter (e.g. "
        "--trace-filter rpc,east/), or raise --trace-max-events\n",
        tracer.options().max_events, static_cast<unsigned long long>(tracer.dropped()));
  }
  if (tracer.untraced_actors() > 0) {
    std::printf(
        "warning: %llu goroutines were not traced: a host had more than %u lanes in use at "
        "once; narrow the window or the hosts with --trace-filter\n",
        static_cast<unsigned long long>(tracer.untraced_actors()), tracer.options().max_lanes);
  }
}

}  // namespace skysim::app
