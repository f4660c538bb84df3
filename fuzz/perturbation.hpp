#pragma once
// A fault world drawn from one fuzz seed: which faults a base scenario gets, when, how strong.
// Swarm testing (Groce et al., "Swarm Testing", ISSTA 2012): each fault kind is switched on or
// off per seed, so some worlds have only crashes, some only bursts, and interactions that one
// kind would mask still get explored.
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"
#include "sim/time.hpp"

namespace skysim::fuzz {

// Crash: a host down for a while. Burst, HugeBatch: traffic. ParamFlip: a settable count lowered.
// DelaySpike, Clog, GcPause: the queue-server's link and process hooks (link_delay, link_clogged,
// paused). CommitUnknown: FoundationDB's commit_unknown_result (1021) on an fdb service.
// OomKill, GoGcPause (and LogStall, FdLimit): a go-service host's hooks (a lowered memory_limit,
// the Go process stopped, the log collector stalled, a lowered RLIMIT_NOFILE). MemcachedRestart
// (and SynDrop, MemcachedSlow): a memcached host's (down then back empty, SYNs lost, slower).
// ScyllaDown: down_nodes of a fanout kind's cluster or a scylla service.
enum class FaultKind {
  Crash,
  Burst,
  HugeBatch,
  ParamFlip,
  DelaySpike,
  Clog,
  GcPause,
  CommitUnknown,
  OomKill,
  MemcachedRestart,
  GoGcPause,
  ScyllaDown,
  // Added with issue 25 item 4 (drawn after every kind above, so older seeds keep their knobs).
  Partition,
  PacketLoss,
  SynDrop,
  MemcachedSlow,
  ScyllaSlow,
  LogStall,
  FdLimit
};
const char* fault_kind_name(FaultKind k);

// One injected fault; times are offsets from the scenario's epoch.
struct Fault {
  FaultKind kind = FaultKind::Crash;
  std::string target;  // Crash, DelaySpike, Clog, GcPause, OomKill, MemcachedRestart,
                       // GoGcPause: host path "dc/service/i";
                       // Burst: source; HugeBatch: source it copies;
                       // ParamFlip, CommitUnknown, ScyllaDown: "dc.service""
  std::string param;   // ParamFlip: the settable count parameter
  sim::Duration at = 0;
  sim::Duration length = 0;  // how long the fault lasts (ParamFlip: until the end)
  double strength = 0;       // Burst: rate multiplier; HugeBatch: requests/s; ParamFlip: value;
                             // DelaySpike: extra delay in ms; CommitUnknown: probability per commit
                             // OomKill: memory_limit in bytes (full scale); ScyllaDown: nodes
  std::int64_t size_bytes = 0;  // HugeBatch: bytes per request
  std::string describe() const;
};

struct Perturbation {
  std::string base_file;
  std::uint64_t seed = 0;      // the fuzz seed, also the run's root seed
  sim::Duration duration = 0;  // the run's length (the shrinker shortens it)
  double rate_factor = 1.0;    // multiplies every base source rate (the shrinker lowers it)
  std::vector<Fault> faults;
  std::vector<std::string> swarm;  // "crash=on burst=off ...": the knobs this seed switched
  std::vector<std::string> kinds;  // service kinds of the base (which probes can apply)
  // Every sampled knob, one per line, for the run's log and the report.
  std::string describe() const;
};

// Draws the perturbation of `base` for `seed` from the named stream "fuzz/<scenario name>";
// the same base and seed give the same perturbation on every machine.
Perturbation draw_perturbation(const scenarios::Scenario& base, std::uint64_t seed);

// The base scenario's document with the perturbation applied, every invariant switched on and
// the seed set: YAML text that `skysim run` loads as is.
std::string perturbed_yaml(const scenarios::Scenario& base, const Perturbation& p);

// The same world as `--set` overrides of the base file: one `path=value` per top-level key
// (per source under `sources`) whose value differs from the base's, values in YAML flow style;
// `skysim run BASE --seed N --set ...` with them runs what perturbed_yaml describes. The
// invariants list is left to the base unless it lacks `invariant` (then it is extended by it):
// which invariants are checked moves no event.
std::vector<std::string> set_overrides(const scenarios::Scenario& base, const Perturbation& p,
                                       const std::string& invariant);

}  // namespace skysim::fuzz
