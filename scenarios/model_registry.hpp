#pragma once
// The model registry: how a model (a "service kind") plugs into scenarios.
//
// A kind declares, in ONE place, its name, a one-line doc, its parameters (sim::ParamSpec — the
// single declaration read by the loader, the validator, `skysim explain KIND` and the generated
// docs/scenario-reference.md), the endpoints it serves (so the validator can reject a traffic
// source aimed at a missing endpoint), and a factory that builds one host of it into a World.
//
// Worked example — wiring a memcached model (models/memcached) that knows nothing of YAML:
//
//   // scenarios/kinds/memcached_kind.cpp  (or next to register_builtin_models)
//   class MemcachedHost final : public scenarios::Instance {
//    public:
//     MemcachedHost(scenarios::World& w, const scenarios::HostContext& ctx)
//         : Instance(ctx), server_(w.sim(), memcached::Config{
//               .max_conns = ctx.params.count("max_conns"),
//               .get_time = ctx.params.distribution_ptr("get_time")}) {
//       w.metrics().gauge_fn("memcached.conns", {{"host", path()}},
//                            [this] { return double(server_.open_conns()); });
//     }
//     void handle(scenarios::Request r) override { server_.get(std::move(r)); }
//     void set(std::string_view name, const sim::ParamValue& v) override {
//       if (name == "max_conns") { server_.set_max_conns(v.integer); return; }
//       Instance::set(name, v);   // throws "not settable at run time"
//     }
//     void crash() override { server_.drop_all(); }
//   };
//
//   void register_builtin_models(Registry& r) {
//     r.add({.name = "memcached",
//            .doc = "gomemcache-style cache server (domain.md §5)",
//            .params = memcached::Config::params(),   // std::vector<sim::ParamSpec>
//            .endpoints = {"get", "set"},
//            .build = [](World& w, const HostContext& c) {
//              return std::make_unique<MemcachedHost>(w, c);
//            }});
//   }
//
// Another host finds its peers through the World by path: `w.find("east/memcached/0")` or all
// hosts of a service with `w.hosts("east", "memcached")` (available once every host is built;
// do such look-ups in Instance::start(), which runs after all factories).
//
// Registration is explicit (register_builtin_models), never by static initialisers: static
// libraries drop unreferenced objects, and with them their initialisers.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/program.hpp"
#include "sim/metrics.hpp"
#include "sim/params.hpp"
#include "sim/report_panel.hpp"
#include "sim/simulation.hpp"
#include "sim/time.hpp"

namespace skysim::scenarios {

class World;
class Machine;

// How a request ended. `ok == false` with a short machine-readable reason ("rejected",
// "deadline", "crashed", "timeout", ...): reasons become metric labels. The reason is a view
// of text that outlives the run: a literal, or error_text() of anything else. A Response is
// handed up through every step of a goroutine (a batch URI's five), so it is three words,
// not a std::string moved at each.
struct Response {
  bool ok = true;
  std::string_view error;
  // The storage side's hot-key signal piggy-backed on the reply (Tejo, domain.md §9.1): set by
  // a scylla service running hot_keys when the node that coordinated the request holds the key
  // hot; a caller with a hot-key cache keeps the reply (a go-service call's hot_cache).
  bool hot = false;
};

// `text` kept for the rest of the thread's life (a run's simulation is on one thread), once
// per distinct text: a Response's reason that is not a literal ("" stays an empty view).
std::string_view error_text(std::string_view text);

// One request from a traffic source (or from another instance) to an endpoint of a host.
struct Request {
  std::uint64_t id = 0;
  std::string client;    // the source's client name: the per-client metric label
  std::string endpoint;  // one of the kind's declared endpoints
  std::int64_t size_bytes = 0;
  // The item the request names (a post, a user) when its caller knows one: a read-through's
  // call after a cache miss names the missed key. A kind with keys of its own maps it there
  // (scylla: a partition); nullopt = the kind picks, as most do.
  std::optional<std::uint64_t> key;
  // The rows a read scans, when its caller knows (a fan-out's inbox read under per_shard);
  // 0 = the kind's own (scylla: read_rows).
  std::uint32_t rows = 0;
  sim::Time issued_at = 0;
  sim::Time deadline = sim::kTimeMax;  // absolute; the instance may drop work past it
  // Called exactly once when the request completes (or fails). May be empty.
  std::function<void(const Response&)> done;

  void complete(Response r) {
    if (done) {
      auto f = std::move(done);
      done = nullptr;
      f(r);
    }
  }
};

// Where a host sits and what it was configured with (service params merged with host overrides).
struct HostContext {
  std::string datacenter;
  std::string service;
  std::string kind;
  int host_index = 0;
  int host_count = 1;
  double scale = 1.0;  // the scenario's scale knob: shrink pools/ranges together (DESIGN.md)
  sim::ParamValues params;
  ProgramPtr program = nullptr;  // the service's `program:` (kinds with runs_program only)
  std::string machine;  // the shared machine this host runs on ("dc/name/i"), "" = its own
  std::string path() const { return datacenter + "/" + service + "/" + std::to_string(host_index); }
};

// A named check: "" = holds, else what is broken. Checked while the run goes (at the end of
// every 1/200 of the span), at its end, and after every event of the replay that locates a
// violation. `end_only`: too costly for every tick (a walk over a whole store), so checked only
// at the end and in that replay; give such a check a cheap companion kept at the state change
// it guards.
struct Invariant {
  std::string name;
  std::function<std::string()> check;
  bool end_only = false;
};

// Something a host saw happen that a user replaying an outage wants dated in the summary
// ("first bind error", "OOM kill", "dialer changed to random_loopback").
struct Milestone {
  sim::Time at = 0;
  std::string what;
};

// One built host of a service kind.
class Instance {
 public:
  explicit Instance(const HostContext& ctx) : ctx_(ctx), path_(ctx.path()) {}
  virtual ~Instance() = default;
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  const std::string& path() const { return path_; }  // "dc/service/index"
  const HostContext& context() const { return ctx_; }
  bool up() const { return up_; }

  // After every host of the scenario is built, before the first event: resolve peers, spawn
  // long-lived processes.
  virtual void start(World& world) {}
  // A request arrives. Must eventually call r.complete(...) exactly once.
  virtual void handle(Request r) = 0;
  // A timeline entry changes a parameter (the loader has already parsed and range-checked it
  // against the ParamSpec, which must be marked settable). Default: refuse.
  virtual void set(std::string_view name, const sim::ParamValue& value);
  // A host crash: drop in-flight work (complete it with "crashed") and stop serving.
  virtual void crash() { up_ = false; }
  // Restart after a crash: serve again with empty state.
  virtual void restart() { up_ = true; }
  // Checked at the end of the run; results go into summary.json.
  virtual std::vector<Invariant> invariants() { return {}; }
  // Dated events for the summary's "phases" list, oldest first.
  virtual std::vector<Milestone> milestones() const { return {}; }
  // Called once when the run ends (flush gauges, settle accounting). Not on a failure.
  virtual void finish(World& world) {}

 protected:
  void set_up(bool up) { up_ = up; }

 private:
  HostContext ctx_;
  std::string path_;
  bool up_ = true;
};

using Factory = std::function<std::unique_ptr<Instance>(World&, const HostContext&)>;

struct ServiceKind {
  std::string name;  // as written after `kind:` in a scenario
  std::string doc;   // one line
  std::vector<sim::ParamSpec> params;
  std::vector<std::string> endpoints;
  Factory build;
  // The service declares a `program:` (scenarios/program.hpp) and serves its handlers as
  // endpoints instead of `endpoints`.
  bool runs_program = false;
  // Its hosts may run on a datacenter's shared machines (`machine:`, scenarios/machine.hpp):
  // the factory builds its process on HostContext::machine's cores, socket table and memory.
  bool runs_on_machines = false;
  // String parameters that name another service of the same datacenter, with the kind it
  // must be ({"cluster", "scylla"}: a fanout-fleet's cluster). An empty value names
  // none. The loader checks that the service exists, is of that kind and is declared above
  // (services are built in file order, and the factory looks its peer up).
  std::vector<std::pair<std::string, std::string>> peer_params = {};
  // What `skysim report` draws for this kind, given the hosts a run built of it (their
  // configuration fills in the limits; no hosts = the panels without limits). Empty = the
  // report falls back to one panel per sampled metric.
  std::function<std::vector<sim::ReportPanel>(const std::vector<HostContext>&)> report_panels = {};
  // Checks that need more than one parameter (restart_backoff_max >= restart_backoff_initial):
  // builds the model's configuration from a host's context as the factory would, and throws
  // std::invalid_argument("PARAM: what is wrong") without building anything. The loader runs
  // it for every host so `skysim validate` reports the error at PARAM's file:line instead of
  // the run failing when the world is built. Empty = the kind has no such checks.
  std::function<void(const HostContext&)> check_config = {};

  const sim::ParamSpec* param(std::string_view n) const {
    for (const auto& p : params) {
      if (p.name == n) return &p;
    }
    return nullptr;
  }
  bool serves(std::string_view endpoint) const {
    for (const auto& e : endpoints) {
      if (e == endpoint) return true;
    }
    return false;
  }
};

class Registry {
 public:
  // Throws std::invalid_argument on a duplicate or malformed declaration.
  void add(ServiceKind kind);
  const ServiceKind* find(std::string_view name) const;
  // Sorted by name.
  std::vector<const ServiceKind*> kinds() const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, ServiceKind, std::less<>> kinds_;
};

// Every kind the project ships. The lead adds new models here.
void register_builtin_models(Registry& r);

// The registry with every builtin model (built once, on first use).
const Registry& builtin_registry();

// The simulation, its metrics and every built host, by path.
class World {
 public:
  World(sim::Simulation& sim, sim::MetricsRegistry& metrics);  // out of line: Machine is
  ~World();                                                   // incomplete here
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  sim::Simulation& sim() { return sim_; }
  sim::MetricsRegistry& metrics() { return metrics_; }

  // "dc/service/index"; nullptr if absent.
  Instance* find(std::string_view path) const;
  // Hosts of one service in index order (empty if none).
  std::vector<Instance*> hosts(std::string_view datacenter, std::string_view service) const;
  const std::map<std::string, std::unique_ptr<Instance>, std::less<>>& instances() const {
    return instances_;
  }
  Instance& add(std::unique_ptr<Instance> instance);
  // The shared machines (scenarios/machine.hpp), built before any host: by path "dc/name/i".
  void add_machine(std::unique_ptr<Machine> machine);
  // Throws std::logic_error if absent (the loader checked every `machine:`).
  Machine& machine(std::string_view path) const;
  // A small number per host path (1, 2, ...), the same in every run: handed out in the order
  // asked, which the scenario's build order fixes. What hosts' network addresses are made of
  // (a factory may ask before its peers are built).
  std::uint32_t host_number(std::string_view path);

 private:
  sim::Simulation& sim_;
  sim::MetricsRegistry& metrics_;
  // Declared first, so destroyed after the hosts, whose processes run on them.
  std::map<std::string, std::unique_ptr<Machine>, std::less<>> machines_;
  std::map<std::string, std::unique_ptr<Instance>, std::less<>> instances_;
  std::vector<Instance*> built_;  // in build order: destroyed in reverse
  std::map<std::string, std::uint32_t, std::less<>> host_numbers_;
};

}  // namespace skysim::scenarios
