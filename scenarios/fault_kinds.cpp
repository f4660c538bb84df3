#include "scenarios/fault_kinds.hpp"

namespace skysim::scenarios {

const std::vector<FaultKindSpec>& fault_kinds() {
  static const std::vector<FaultKindSpec> kinds = {
      {"delay-spike", "link_delay", false, false, "the link delay during the window (a duration)",
       "queue-server: every request crosses the link into the host this much later, in order"},
      {"clog", "link_clogged", true, false, "",
       "queue-server: the link delivers nothing, then everything in order"},
      {"gc-pause", "paused", true, false, "",
       "queue-server: a stop-the-world pause; no request starts or finishes"},
      {"commit-unknown", "commit_unknown_probability", false, true,
       "the share of commits answered commit_unknown_result (a percentage)",
       "uid-interning: FoundationDB error 1021 on that share of commits"},
      {"oom", "memory_limit", false, false, "the container memory limit (a size, full scale)",
       "dataplane: the limit drops; RSS above it is an OOM kill, restarts crash-loop meanwhile"},
      {"memcached-restart", "memcached_down", true, false, "",
       "dataplane: the local memcached is down, then back empty"},
      {"go-gc-pause", "gc_paused", true, false, "",
       "dataplane: the Go process is stopped (a forced stop-the-world)"},
      {"scylla-down", "down_nodes", false, true, "how many Scylla nodes are down (a count)",
       "fanout: the first N nodes are down; ops short of CL wait"},
  };
  return kinds;
}

const FaultKindSpec* find_fault_kind(std::string_view type) {
  for (const auto& k : fault_kinds()) {
    if (k.type == type) return &k;
  }
  return nullptr;
}

std::string fault_type_names() {
  std::string s = "crash";
  for (const auto& k : fault_kinds()) s += ", " + k.type;
  return s;
}

}  // namespace skysim::scenarios
