#pragma once
// The outcome of one run, as a self-describing JSON line: which sweep it belongs to, its
// variant's overrides, seed, status and final metrics. Shards write these; merge reads them.
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

// One line of text (no trailing newline). Numbers use a fixed format that reads back exactly.
std::string to_json_line(const SweepSpec& spec, const RunRecord& record);

// Parses one line; `where` (e.g. "shard-1.jsonl:3") prefixes error messages. The sweep the line
// belongs to is returned through `spec`.
RunRecord from_json_line(std::string_view line, std::string_view where, SweepSpec& spec);

// Final metrics from a run's summary.json: every number under "metrics", nested objects
// flattened as "outer.inner"; booleans count as 0/1. A counter or gauge series
// {"type", "value", ...} is named by its key alone; a histogram gives "key.p99" and so on.
// Throws JsonError when "metrics" is absent.
std::map<std::string, double> metrics_from_summary(const Json& summary);

}  // namespace skysim::analysis
