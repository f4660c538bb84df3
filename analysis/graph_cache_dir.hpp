#pragma once
// The follow-graph cache a compare's workers share (models/social/graph_file.hpp): every
// variant of one seed draws the same graph, so the first run of a seed saves it and the others
// read it back (docs/benchmarks.md, h-tablespeed). A temporary directory, named to the workers
// by $SKYSIM_GRAPH_CACHE, removed when the compare ends. analysis/ links no model code, so it
// only names the variable; the models decide what goes in it.
#include <string>

namespace skysim::analysis {

inline constexpr const char* kGraphCacheEnv = "SKYSIM_GRAPH_CACHE";  // = social::kGraphCacheEnv

class GraphCacheDir {
 public:
  // Creates the directory and exports it, unless $SKYSIM_GRAPH_CACHE is already set (a cache
  // chosen by the caller, kept afterwards) or creating it fails (the runs then draw their own).
  GraphCacheDir();
  ~GraphCacheDir();
  GraphCacheDir(const GraphCacheDir&) = delete;
  GraphCacheDir& operator=(const GraphCacheDir&) = delete;

  const std::string& path() const { return path_; }  // "" when not ours

 private:
  std::string path_;
};

}  // namespace skysim::analysis
