#pragma once
// The outcome of one run as a JSON line — its variant's overrides, seed, status and every
// final metric — and the one header record that opens a runs file (runs.jsonl, a shard): the
// sweep, the build of skysim that ran it and the scenario file's hash. Shards write these;
// merge reads them and refuses to mix sweeps, builds or scenario files.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/json.hpp"
#include "analysis/sweep.hpp"

namespace skysim::analysis {

struct RunRecord {
  RunSpec run;
  bool ok = false;
  int exit_code = 0;              // of the worker; -N when killed by signal N
  std::string failure;            // why the run failed, one line; empty when ok
  std::string fingerprint;        // the run's event fingerprint, when it reported one
  std::map<std::string, double> metrics;  // final metrics, flattened to dotted names
};

// The first record of a runs file. `build` and `scenario_hash` are digests of the worker
// program and of the scenario file ("xxh64:..."); empty when unknown (library tests).
struct RunsHeader {
  SweepSpec spec;
  std::string build;
  std::string scenario_hash;
};

inline constexpr const char* kRunsFormat = "skysim-compare-runs/2";

std::string header_line(const RunsHeader& header);
// Throws JsonError prefixed by `where` when the line is not a header (e.g. a run line, or a
// file written before headers existed).
RunsHeader header_from_line(std::string_view line, std::string_view where);

// One line of text (no trailing newline). Numbers read back exactly.
std::string to_json_line(const SweepSpec& spec, const RunRecord& record);

// Parses one line of the sweep `spec` (from the file's header); `where` (e.g.
// "shard-1.jsonl:3") prefixes error messages.
RunRecord from_json_line(std::string_view line, std::string_view where, const SweepSpec& spec);

// Final metrics from a run's summary.json: every number under "metrics", nested objects
// flattened as "outer.inner"; booleans count as 0/1. A counter or gauge series
// {"type", "value", ...} is named by its key alone; a histogram gives "key.p99" and so on.
// Throws JsonError when "metrics" is absent.
std::map<std::string, double> metrics_from_summary(const Json& summary);

}  // namespace skysim::analysis
