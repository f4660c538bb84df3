#pragma once
// Runs a scenario in-process with a tracer attached as `skysim run --trace` does, writes the
// file, and checks it (tests/sim/trace_check.hpp).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "scenarios/runner.hpp"
#include "scenarios/trace_setup.hpp"
#include "sim/trace.hpp"
#include "tests/sim/trace_check.hpp"

namespace skysim::scenarios::testing {

struct Traced {
  std::uint64_t fingerprint = 0;
  std::uintmax_t bytes = 0;
  std::uint64_t dropped = 0;
  tracecheck::Report report;
};

inline Traced run_traced(const Scenario& sc, sim::Tracer::Options o,
                         std::optional<sim::Time> until = std::nullopt) {
  ScenarioRun run(sc, builtin_registry());
  o.kernel_events = sim::Tracer::KernelEvents::kCountOnly;
  sim::Tracer tracer(run.sim(), o);
  trace_scenario(run, tracer);
  Traced t;
  t.fingerprint = run.run(until).fingerprint;
  // One file per test process: ctest runs the trace tests side by side, and a shared name let
  // one test check the file another was writing.
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("skysim-trace-test-" + std::to_string(getpid()) + ".json"))
                               .string();
  tracer.write_file(path);
  t.bytes = std::filesystem::file_size(path);
  t.dropped = tracer.dropped();
  t.report = tracecheck::check_file(path);
  std::remove(path.c_str());
  return t;
}

}  // namespace skysim::scenarios::testing
