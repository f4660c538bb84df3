#pragma once
// What binary made a run: written into summary.json (and compare's shard headers) so a result can
// be traced to its source, and results of different builds are never mixed unknowingly.
#include <string>

namespace skysim::app {

struct BuildInfo {
  std::string version;     // the CMake project version
  std::string commit;      // git HEAD at build time, "-dirty" if tracked files differed; or "unknown"
  std::string build_type;  // CMAKE_BUILD_TYPE: RelWithDebInfo, Debug, ...
};

const BuildInfo& build_info();

}  // namespace skysim::app
