#pragma once
// A scenario as the loader resolved it: every unit parsed, every default filled in, every
// reference checked. The YAML document (after --set overrides) is kept so the run can write
// scenario.resolved.yaml, which loads back to the same scenario and the same fingerprint.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/program.hpp"
#include "sim/params.hpp"
#include "sim/time.hpp"

namespace skysim::scenarios {

struct ServiceSpec {
  std::string datacenter;
  std::string name;
  std::string kind;
  int hosts = 1;
  std::vector<sim::ParamValues> host_params;  // per host: service params + host overrides
  ProgramPtr program;  // a kind that runs a program (go-service): its clients and handlers
  // The machines its hosts run on (`machine: NAME`): host i on that machine's i; "" = each
  // host is a machine of its own.
  std::string machine;
};

// Machine `index` of `name` in `datacenter`: "dc/name/i", as World::machine finds it.
inline std::string machine_path(const std::string& datacenter, const std::string& name,
                                int index) {
  return datacenter + "/" + name + "/" + std::to_string(index);
}

// A machine several services' processes share (`machines: {NAME: {count, params}}`): its
// cores, its kernel (one socket table: the ephemeral ports, TIME_WAIT, the sysctls) and its
// memory.
struct MachineSpec {
  std::string datacenter;
  std::string name;
  int count = 1;
  sim::ParamValues params;  // machine_params(): cores, scheduler, port range, TIME_WAIT, memory
  std::string path(int index) const { return machine_path(datacenter, name, index); }
};

struct DatacenterSpec {
  std::string name;
  std::vector<ServiceSpec> services;  // in file order
  std::vector<MachineSpec> machines;  // in file order
};

// Sinusoidal day shape: rate(t) = rate * (1 + amplitude * cos(2π (time_of_day(t) - peak) / 1d)).
struct DiurnalShape {
  double amplitude = 0;    // fraction in [0, 1]
  sim::Duration peak = 0;  // time of day (UTC) of the maximum
};

struct SourceSpec {
  std::string name;
  std::string client;
  std::string from;  // datacenter the requests leave from
  std::string target_datacenter;
  std::string target_service;
  std::string endpoint;
  double rate_per_s = 0;  // Poisson arrivals
  sim::DistributionPtr request_size;
  std::optional<DiurnalShape> diurnal;
  sim::Time start = 0;  // simulated time (ns since epoch)
  sim::Time stop = sim::kTimeMax;
  sim::Duration deadline = 0;  // 0 = none
  bool enabled = true;
  // `scale_by: size`: keep the request rate and shrink each request's size by `scale` instead
  // (a batch client whose every batch must still eat the same share of a scaled resource).
  bool scale_by_size = false;
  // Counted in `user.requests.good/bad{dc}`, the per-datacenter success people see. An
  // internal client (a batch job, a backfill) says `user_facing: false`: its outcomes stay in
  // the per-client `requests.*` counters only.
  bool user_facing = true;
  // `first_arrival: at_start`: the first request is issued at the moment the source starts,
  // the later ones after exponential gaps as usual (a replay or a testbed whose client sends
  // its first request at a known time). Default `drawn`: the first comes one gap after start.
  bool first_at_start = false;
};

enum class ActionType {
  SetParam,
  SetMachineParam,  // target: a machine's path "dc/name/i"
  SetSourceRate,
  StartSource,
  StopSource,
  Crash,
  Restart
};

struct Action {
  ActionType type = ActionType::SetParam;
  std::string target;     // host path "dc/service/i" (one per host), or source name
  std::string param;      // SetParam
  sim::ParamValue value;  // SetParam, SetSourceRate (number = per second)
};

struct TimelineEntry {
  sim::Time at = 0;  // simulated time
  std::vector<Action> actions;
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::int64_t epoch_unix_ns = 0;
  sim::Duration duration = 0;
  std::uint64_t seed = 1;
  double scale = 1.0;
  sim::Duration metrics_interval = 0;
  std::vector<std::string> report;      // metric-name prefixes for the summary (empty = all)
  std::vector<std::string> invariants;  // names to check (empty = all)
  std::vector<DatacenterSpec> datacenters;
  std::vector<SourceSpec> sources;
  std::vector<TimelineEntry> timeline;  // timeline entries and faults, sorted by time (stable)
  YAML::Node document;                  // after overrides, with the effective seed

  const ServiceSpec* service(const std::string& dc, const std::string& name) const;
};

// One problem found while loading: where, which key, what, what was expected.
struct Diagnostic {
  std::string where;  // "file:line:column" or "--set path=value"
  std::string path;   // key path in --set grammar: "datacenters.east.services.web.hosts"
  std::string message;
  std::string expected;  // may be empty
  std::string to_string() const;
};

class ScenarioError : public std::runtime_error {
 public:
  explicit ScenarioError(std::vector<Diagnostic> d);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace skysim::scenarios
