#pragma once
// `skysim compare` and `skysim merge` as library calls (app/ only parses the command line).
// Both end in the same place: the run records, serialised as JSON lines and read back, become
// the comparison — so a merged set of shards prints and writes the same bytes as one big run.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "analysis/comparison.hpp"
#include "analysis/sweep.hpp"

namespace skysim::analysis {

struct CompareOptions {
  SweepSpec spec;
  int jobs = 1;
  std::optional<Shard> shard;       // run only this shard and write its JSON lines
  std::string out_dir;              // created if absent
  std::vector<std::string> series;  // time-series columns to overlay by variant
  std::string program;              // the skysim binary for workers; empty = this executable
  bool plots = true;
  bool progress = false;            // one line per finished run on `err`
};

// Exit status: 0 when every run succeeded, 1 when any failed (the failures are listed with
// their reproducers). Sharded, the same holds for the shard's own runs.
int run_compare(const CompareOptions& opt, std::ostream& out, std::ostream& err);

// Combines shard files (JSON lines) into the outputs and exit status of the unsharded compare.
// Throws std::invalid_argument when the files describe different sweeps, or runs are missing or
// repeated.
int run_merge(const std::vector<std::string>& files, const std::string& out_dir, bool plots,
              std::ostream& out, std::ostream& err);

// File names inside an output directory.
inline constexpr const char* kRunsFile = "runs.jsonl";
std::string shard_file_name(const Shard& s);  // "shard-2-of-3.jsonl"

}  // namespace skysim::analysis
