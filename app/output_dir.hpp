#pragma once
// Output directories are checked before a run starts: a typo in --out must not cost the run.
#include <string>

namespace skysim::app {

// Creates `dir` (and its parents) if missing; throws UsageError naming `flag` when it cannot be
// created, is not a directory, or cannot be written.
void prepare_output_dir(const std::string& dir, const std::string& flag);

}  // namespace skysim::app
