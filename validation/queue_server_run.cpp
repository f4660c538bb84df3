#include "validation/queue_server_run.hpp"

#include <stdexcept>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

namespace skysim::validation {

QueueServerObservation run_queue_server_scenario(const std::string& file, std::uint64_t seed,
                                                 const std::string& duration) {
  using namespace skysim::scenarios;
  LoadOptions options;
  options.seed = seed;
  options.overrides.push_back({"duration", duration});
  Scenario s = load_scenario_file(file, builtin_registry(), options);
  ScenarioRun run(s, builtin_registry());
  RunResult result = run.run();

  const std::string host = "lab/q/0";
  auto& metrics = run.metrics();
  const sim::Histogram& wait = metrics.histogram("queue.wait_ns", {{"host", host}});
  QueueServerObservation o;
  o.arrivals = metrics.value("queue.arrivals{host=" + host + "}");
  o.rejected = metrics.value("queue.rejected{host=" + host + "}");
  o.started = static_cast<double>(wait.count());
  o.mean_wait_s = wait.mean() / 1e9;
  // Waits below 64 ns sit in exact buckets, so bucket 0 counts exactly the zero waits.
  std::uint64_t zero = 0;
  wait.for_each_bucket([&](std::uint64_t lowest, std::uint64_t count) {
    if (lowest == 0) zero = count;
  });
  o.waited_fraction = o.started > 0 ? 1.0 - static_cast<double>(zero) / o.started : 0.0;
  auto column = run.sampler().column("queue.length{host=" + host + "}");
  if (column.empty()) {
    throw std::runtime_error(file + ": the sampler recorded no queue.length for " + host);
  }
  double sum = 0;
  for (const auto& [t, v] : column) sum += v;
  o.mean_queue_length = sum / static_cast<double>(column.size());
  o.window_s = static_cast<double>(result.end) / 1e9;
  o.invariants_hold = result.invariants_hold();
  o.fingerprint = result.fingerprint;
  return o;
}

std::string default_scenario_dir() { return SKYSIM_SCENARIO_DIR; }

}  // namespace skysim::validation
