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
      {"partition", "link_partitioned", true, false, "",
       "queue-server: the host is cut off from its clients; TCP retransmits (RTO 200 ms "
       "doubling), so what was sent arrives at the first retransmission after the heal"},
      {"packet-loss", "link_loss", false, false,
       "the share of segments lost (a percentage)",
       "queue-server: each segment on the link is lost with that probability and retransmitted "
       "after the RTO, holding the ones behind it"},
      {"commit-unknown", "commit_unknown_probability", false, true,
       "the share of commits answered commit_unknown_result (a percentage)",
       "fdb: FoundationDB error 1021 on that share of commits"},
      {"oom", "memory_limit", false, false, "the container memory limit (a size, full scale)",
       "go-service: the limit drops; RSS above it is an OOM kill, restarts crash-loop "
       "meanwhile"},
      {"memcached-restart", "memcached_down", true, false, "",
       "memcached: the server is down (connections refused, open ones read EOF), then back "
       "empty"},
      {"go-gc-pause", "gc_paused", true, false, "",
       "go-service: the Go process is stopped (a forced stop-the-world)"},
      {"syn-drop", "memcached_syn_loss", false, false,
       "the share of SYNs lost (a percentage)",
       "memcached: SYNs to the server are lost; the client's 1 s SYN retransmit outlasts "
       "gomemcache's 500 ms dial timeout, so each loss is a connect timeout"},
      {"memcached-slow", "memcached_slowdown", false, false,
       "the extra time per request (a duration)",
       "memcached: the server takes that much longer per request"},
      {"scylla-slow", "scylla_slow_node", false, false,
       "the slowdown factor of Scylla node 0 (a number >= 1)",
       "fanout, scylla: node 0's shards need that many times the CPU per task"},
      {"log-stall", "log_drain_stalled", true, false, "",
       "go-service: the log collector stops reading the pipe; writers block once "
       "it is full and drain after"},
      {"fd-limit", "fd_limit", false, false,
       "the RLIMIT_NOFILE soft limit (a count of descriptors, full scale)",
       "go-service: dials beyond the process's open-file limit fail with EMFILE"},
      {"scylla-down", "down_nodes", false, true, "how many Scylla nodes are down (a count)",
       "fanout, scylla: the first N nodes are down; ops short of CL wait"},
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
