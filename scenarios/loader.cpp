#include "scenarios/loader.hpp"

#include "scenarios/fault_kinds.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <xxhash.h>

#include "scenarios/distributions.hpp"
#include "scenarios/machine.hpp"
#include "scenarios/param_scaling.hpp"
#include "scenarios/units.hpp"
#include "scenarios/yaml_aliases.hpp"
#include "scenarios/program_loader.hpp"
#include "scenarios/yaml_checker.hpp"
#include "sim/edit_distance.hpp"

namespace skysim::scenarios {

std::string Diagnostic::to_string() const {
  std::string s = where + ": ";
  // "--set PATH: PATH: ..." says the path twice.
  if (!path.empty() && where != "--set " + path) s += path + ": ";
  s += message;
  if (!expected.empty()) s += " (expected " + expected + ")";
  return s;
}

namespace {
std::string join_diagnostics(const std::vector<Diagnostic>& d) {
  std::string s;
  for (const auto& x : d) s += (s.empty() ? "" : "\n") + x.to_string();
  return s;
}
}  // namespace

ScenarioError::ScenarioError(std::vector<Diagnostic> d)
    : std::runtime_error(join_diagnostics(d)), diagnostics_(std::move(d)) {}

const ServiceSpec* Scenario::service(const std::string& dc, const std::string& name) const {
  for (const auto& d : datacenters) {
    if (d.name != dc) continue;
    for (const auto& s : d.services) {
      if (s.name == name) return &s;
    }
  }
  return nullptr;
}

namespace {

using namespace yamlcheck;

constexpr std::size_t kMaxFileBytes = 16 << 20;
constexpr int kMaxHosts = 100'000;
constexpr sim::Duration kMaxDuration = 3660 * sim::kDay;  // ten years

std::vector<std::string> param_names(const ServiceKind& k) {
  std::vector<std::string> names;
  for (const auto& p : k.params) names.push_back(p.name);
  return names;
}

// Reads a `params:` map into `out` (which may already hold values to override).
// A value given for a parameter that names clients, checked once the sources are known.
struct ClientReference {
  std::string where;
  std::string path;
  std::string clients;  // comma-separated
};

void read_params(Checker& c, const ServiceKind& kind, const YAML::Node& n, const std::string& path,
                 sim::ParamValues& out, std::vector<ClientReference>& client_refs) {
  if (!c.keys(n, path, param_names(kind))) return;
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const sim::ParamSpec* spec = kind.param(it->first.Scalar());
    if (!spec) continue;  // reported by keys()
    std::string pp = join(path, spec->name);
    if (auto v = parse_param(c, *spec, it->second, pp)) {
      if (spec->names_clients) client_refs.push_back({c.where(it->second, pp), pp, v->text});
      out.set(spec->name, std::move(*v));
    }
  }
}

void fill_defaults(Checker& c, const ServiceKind& kind, const YAML::Node& at,
                   const std::string& path, sim::ParamValues& out) {
  for (const auto& spec : kind.params) {
    if (out.has(spec.name)) continue;
    if (!spec.default_text) {
      c.error(at, join(path, spec.name), "missing required parameter of " + kind.name,
              expected_for(spec));
      continue;
    }
    try {
      YAML::Node d = spec.type == sim::ParamType::Distribution ? YAML::Load(*spec.default_text)
                                                               : YAML::Node(*spec.default_text);
      if (auto v = parse_param(c, spec, d, join(path, spec.name))) out.set(spec.name, *v);
    } catch (const YAML::Exception& e) {
      c.error(at, join(path, spec.name), "bad default in the model: " + e.msg);
    }
  }
}

class Loader {
 public:
  Loader(Checker& c, const Registry& r, Scenario& s) : c_(c), reg_(r), s_(s) {}

  void load(const YAML::Node& root) {
    static const std::vector<std::string> top = {"name",    "description", "epoch",   "duration",
                                                 "seed",    "scale",       "metrics", "datacenters",
                                                 "sources", "timeline",    "faults",  "invariants",
                                                 "variants", "variant"};
    if (!c_.keys(root, "", top, {"name", "epoch", "duration", "datacenters"})) return;
    if (root["name"]) {
      if (auto v = c_.scalar(root["name"], "name", "a name of letters, digits, - and _")) {
        if (!valid_name(*v)) {
          c_.error(root["name"], "name", "bad name '" + printable(*v) + "'",
                   "1-64 letters, digits, - or _");
        }
        s_.name = *v;
      }
    }
    if (root["description"]) {
      if (auto v = c_.scalar(root["description"], "description", "text")) s_.description = *v;
    }
    if (root["epoch"]) {
      if (auto v = c_.parse(root["epoch"], "epoch", "an ISO-8601 date", parse_date)) {
        s_.epoch_unix_ns = *v;
        epoch_ok_ = true;
      }
    }
    if (root["duration"]) {
      auto v = c_.parse(root["duration"], "duration", "a duration", parse_duration);
      if (v && (*v <= 0 || *v > kMaxDuration)) {
        c_.error(root["duration"], "duration", "duration out of range", "between 1ns and 3660d");
      } else if (v) {
        s_.duration = *v;
      }
    }
    if (root["seed"]) {
      if (auto v = c_.parse(root["seed"], "seed", "an integer from 0 to 2^64 - 1", parse_seed)) {
        s_.seed = *v;
      }
    }
    if (root["scale"]) {
      auto v = c_.parse(root["scale"], "scale", "a number in (0, 1000]", parse_real);
      if (v && !(*v > 0 && *v <= 1000)) {
        c_.error(root["scale"], "scale", "scale out of range", "a number in (0, 1000]");
      } else if (v) {
        s_.scale = *v;
      }
    }
    s_.metrics_interval = s_.duration > 0 ? std::max<sim::Duration>(s_.duration / 100, 1) : 1;
    if (root["metrics"]) metrics(root["metrics"]);
    if (root["datacenters"]) datacenters(root["datacenters"]);
    check_programs();
    if (root["sources"]) sources(root["sources"]);
    check_client_references();
    if (root["timeline"]) timeline(root["timeline"]);
    if (root["faults"]) faults(root["faults"]);
    if (root["invariants"]) s_.invariants = names(root["invariants"], "invariants");
    if (root["variants"]) variants(root["variants"]);
    std::stable_sort(s_.timeline.begin(), s_.timeline.end(),
                     [](const TimelineEntry& a, const TimelineEntry& b) { return a.at < b.at; });
  }

 private:
  std::vector<std::string> names(const YAML::Node& n, const std::string& path) {
    std::vector<std::string> out;
    if (!n.IsSequence()) {
      c_.error(n, path, "must be a list", "a list like [name1, name2]");
      return out;
    }
    for (std::size_t i = 0; i < n.size(); ++i) {
      if (auto v = c_.scalar(n[i], join(path, std::to_string(i)), "a name")) out.push_back(*v);
    }
    return out;
  }

  // A parameter naming a peer service (ServiceKind::peer_params): one declared above in the
  // same datacenter (services_ holds exactly those), of the kind it must be.
  void check_peers(const ServiceKind& kind, const std::string& dc, const ServiceSpec& s,
                   const YAML::Node& params, const std::string& pp) {
    for (const auto& [param, want] : kind.peer_params) {
      const std::string& name = s.host_params.front().string(param);
      if (name.empty()) continue;
      const YAML::Node at = params[param] ? params[param] : params;
      auto it = services_.find(dc + "." + name);
      if (it == services_.end()) {
        c_.error(at, join(pp, param),
                 "no service '" + printable(name) + "' declared above " + s.name + " in " + dc,
                 "a " + want + " service of datacenter " + dc + ", declared before this one");
      } else if (it->second.kind->name != want) {
        c_.error(at, join(pp, param),
                 "'" + printable(name) + "' is a " + it->second.kind->name + " service",
                 "a " + want + " service");
      }
    }
  }

  // The variants were applied before the document was read (apply_variant); here each one's
  // shape is checked, chosen or not, so a broken variant is reported before anyone picks it.
  void variants(const YAML::Node& n) {
    if (!n.IsMap()) {
      c_.error(n, "variants", "must be a map of name to {note, set}", "variants: {NAME: {set: {...}}}");
      return;
    }
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->first.IsScalar()) continue;  // reported by walk()
      const std::string path = join("variants", it->first.Scalar());
      if (!valid_name(it->first.Scalar())) {
        c_.error(it->first, path, "bad variant name", "1-64 letters, digits, - or _");
      }
      if (!c_.keys(it->second, path, {"note", "set"}, {"set"})) continue;
      if (!it->second["set"].IsMap()) {
        c_.error(it->second["set"], join(path, "set"), "must be a map of path: value");
      }
    }
  }

  // Once every service is read: client targets, call endpoints, call cycles.
  void check_programs() {
    std::vector<std::string> dcs;
    for (const auto& d : s_.datacenters) dcs.push_back(d.name);
    check_program_wiring(c_, services_, dcs);
  }

  void metrics(const YAML::Node& n) {
    if (!c_.keys(n, "metrics", {"interval", "report"})) return;
    if (n["interval"]) {
      auto v = c_.parse(n["interval"], "metrics.interval", "a duration", parse_duration);
      if (v && *v <= 0) {
        c_.error(n["interval"], "metrics.interval", "interval must be positive", "a duration > 0");
      } else if (v && s_.duration > 0 && *v * 100000 < s_.duration) {
        c_.error(n["interval"], "metrics.interval", "more than 100000 samples",
                 "an interval >= duration/100000");
      } else if (v) {
        s_.metrics_interval = *v;
      }
    }
    if (n["report"]) s_.report = names(n["report"], "metrics.report");
  }

  void datacenters(const YAML::Node& n) {
    if (!n.IsMap() || n.size() == 0) {
      c_.error(n, "datacenters", "must be a non-empty map of datacenter names",
               "datacenters: {east: {services: ...}}");
      return;
    }
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      std::string name = it->first.Scalar();
      std::string path = join("datacenters", name);
      if (!valid_name(name)) {
        c_.error(it->first, path, "bad datacenter name", "1-64 letters, digits, - or _");
        continue;
      }
      DatacenterSpec dc{name, {}, {}};
      const YAML::Node d = it->second;
      const bool keys_ok = c_.keys(d, path, {"services", "machines"}, {"services"});
      if (keys_ok && d["machines"]) machines(name, d["machines"], join(path, "machines"), dc);
      if (keys_ok && d["services"]) {
        const YAML::Node svcs = d["services"];
        std::string sp = join(path, "services");
        if (!svcs.IsMap() || svcs.size() == 0) {
          c_.error(svcs, sp, "must be a non-empty map of service names");
        } else {
          for (auto st = svcs.begin(); st != svcs.end(); ++st) {
            if (!st->first.IsScalar()) continue;
            if (auto svc = service(name, dc.machines, st->first, st->second,
                                   join(sp, st->first.Scalar()))) {
              dc.services.push_back(std::move(*svc));
            }
          }
        }
      }
      s_.datacenters.push_back(std::move(dc));
    }
  }

  // The kind whose parameters a machine takes (scenarios/machine.hpp): not a service kind.
  static const ServiceKind& machine_kind() {
    static const ServiceKind kind = [] {
      ServiceKind k;
      k.name = "machine";
      k.doc = "a machine several services' processes share";
      k.params = machine_params();
      return k;
    }();
    return kind;
  }

  void machines(const std::string& dc, const YAML::Node& n, const std::string& path,
                DatacenterSpec& out) {
    if (!n.IsMap() || n.size() == 0) {
      c_.error(n, path, "must be a non-empty map of machine names",
               "machines: {node: {count: 2, params: {cores: 8}}}");
      return;
    }
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      MachineSpec m;
      m.datacenter = dc;
      m.name = it->first.Scalar();
      const std::string mp = join(path, m.name);
      if (!valid_name(m.name)) {
        c_.error(it->first, mp, "bad machine name", "1-64 letters, digits, - or _");
        continue;
      }
      const YAML::Node body = it->second;
      if (!c_.keys(body, mp, {"count", "params"})) continue;
      if (body["count"]) {
        auto k = c_.parse(body["count"], join(mp, "count"), "a count", parse_count);
        if (k && (*k < 1 || *k > kMaxHosts)) {
          c_.error(body["count"], join(mp, "count"), "machine count out of range", "1 to 100000");
        } else if (k) {
          m.count = static_cast<int>(*k);
        }
      }
      const YAML::Node params = body["params"] ? body["params"] : YAML::Node(YAML::NodeType::Map);
      const std::string pp = join(mp, "params");
      std::vector<ClientReference> none;
      read_params(c_, machine_kind(), params, pp, m.params, none);
      fill_defaults(c_, machine_kind(), body, pp, m.params);
      if (c_.diagnostics.empty()) {
        try {
          machine_net_sysctl(m.params, s_.scale);
        } catch (const std::invalid_argument& e) {
          const bool range = params.IsMap() && params["port_range_low"];
          c_.error(range ? params["port_range_low"] : params,
                   range ? join(pp, "port_range_low") : pp, e.what(),
                   "port_range_low <= port_range_high");
        }
      }
      out.machines.push_back(std::move(m));
    }
  }

  // The machine `name` among `machines`, or null; `names` gets every name (for the error).
  static const MachineSpec* find_machine(const std::vector<MachineSpec>& machines,
                                         const std::string& name, std::vector<std::string>& names) {
    const MachineSpec* found = nullptr;
    for (const MachineSpec& spec : machines) {
      names.push_back(spec.name);
      if (spec.name == name) found = &spec;
    }
    return found;
  }

  // A service's `machine:`: a machine of its datacenter with a host for each of its own, for a
  // kind that runs on one, whose own parameters leave the machine's alone.
  void place_on_machine(const ServiceKind& kind, const std::vector<MachineSpec>& machines,
                        const YAML::Node& n, const std::string& path, ServiceSpec& s) {
    const std::string at = join(path, "machine");
    auto name = c_.scalar(n["machine"], at, "a machine's name");
    if (!name) return;
    std::vector<std::string> names;
    const MachineSpec* m = find_machine(machines, *name, names);
    if (!m) {
      c_.error(n["machine"], at,
               "no machine '" + printable(*name) + "' in datacenter " + s.datacenter +
                   suggestion(*name, names),
               names.empty() ? "a name under datacenters." + s.datacenter + ".machines"
                             : one_of(names));
      return;
    }
    if (!kind.runs_on_machines) {
      c_.error(n["machine"], at, "a " + kind.name + " service cannot share a machine",
               "machine: only on a go-service or a memcached (docs/scenarios.md, \"Machines\")");
      return;
    }
    if (s.hosts > m->count) {
      c_.error(n["hosts"] ? n["hosts"] : n["machine"], n["hosts"] ? join(path, "hosts") : at,
               std::to_string(s.hosts) + " hosts on machine '" + m->name + "' of count " +
                   std::to_string(m->count),
               "hosts <= the machine's count (host i runs on machine i)");
      return;
    }
    // The machine's parameters are the machine's: a service setting one is a mistake.
    const YAML::Node overrides = n["host_overrides"];
    for (const sim::ParamSpec& spec : machine_kind().params) {
      if (kind.param(spec.name) == nullptr) continue;  // the machine's only: unknown here
      std::vector<std::pair<YAML::Node, std::string>> places = {
          {n["params"] && n["params"].IsMap() ? n["params"][spec.name] : YAML::Node(),
           join(join(path, "params"), spec.name)}};
      if (overrides && overrides.IsMap()) {
        for (auto it = overrides.begin(); it != overrides.end(); ++it) {
          if (!it->first.IsScalar() || !it->second.IsMap()) continue;
          places.push_back({it->second[spec.name],
                            join(join(join(path, "host_overrides"), it->first.Scalar()),
                                 spec.name)});
        }
      }
      for (const auto& [node, where] : places) {
        if (!node.IsDefined() || node.IsNull()) continue;
        c_.error(node, where,
                 spec.name + " is the machine's: set it on machine '" + m->name + "'",
                 "datacenters." + s.datacenter + ".machines." + m->name + ".params." + spec.name);
      }
    }
    s.machine = m->name;
  }

  std::optional<ServiceSpec> service(const std::string& dc,
                                     const std::vector<MachineSpec>& machines,
                                     const YAML::Node& key, const YAML::Node& n,
                                     const std::string& path) {
    ServiceSpec s;
    s.datacenter = dc;
    s.name = key.Scalar();
    if (!valid_name(s.name)) {
      c_.error(key, path, "bad service name", "1-64 letters, digits, - or _");
      return std::nullopt;
    }
    if (!c_.keys(n, path, {"kind", "hosts", "params", "host_overrides", "program", "machine"},
                 {"kind"})) {
      return std::nullopt;
    }
    const ServiceKind* kind = nullptr;
    if (n["kind"]) {
      if (auto k = c_.scalar(n["kind"], join(path, "kind"), one_of(reg_.names()))) {
        kind = reg_.find(*k);
        if (!kind) {
          c_.error(n["kind"], join(path, "kind"),
                   "unknown service kind '" + printable(*k) + "'" + suggestion(*k, reg_.names()),
                   one_of(reg_.names()));
        } else {
          s.kind = kind->name;
        }
      }
    }
    if (n["hosts"]) {
      auto h = c_.parse(n["hosts"], join(path, "hosts"), "a count", parse_count);
      if (h && (*h < 1 || *h > kMaxHosts)) {
        c_.error(n["hosts"], join(path, "hosts"), "host count out of range", "1 to 100000");
      } else if (h) {
        s.hosts = static_cast<int>(*h);
      }
    }
    if (!kind) return std::nullopt;
    if (n["machine"]) place_on_machine(*kind, machines, n, path, s);
    std::shared_ptr<Program> program;
    if (kind->runs_program) {
      if (!n["program"]) {
        c_.error(n, path, "missing required key 'program' (a " + kind->name + " runs one)",
                 "program: {clients: {...}, handlers: {NAME: [steps]}}");
      } else {
        program = read_program(c_, n["program"], join(path, "program"));
        if (program) {
          // A step's parameter naming clients (cache_get's cold_clients) is checked with the
          // kinds' ones, once the sources are known.
          for_each_step(*program, [&](const Step& st) {
            const StepType* type = nullptr;
            for (const StepType& t : step_types()) {
              if (t.kind == st.kind) type = &t;
            }
            for (const sim::ParamSpec& spec : type->params) {
              if (!spec.names_clients || !st.params.has(spec.name)) continue;
              const std::string text = st.params.string(spec.name);
              if (!text.empty()) {
                client_refs_.push_back({st.where, join(st.path, spec.name), text});
              }
            }
          });
        }
      }
    } else if (n["program"]) {
      c_.error(n["program"], join(path, "program"),
               "a " + kind->name + " service takes no program",
               "a program only under a service of a kind that runs one (go-service)");
    }
    s.program = program;
    sim::ParamValues base;
    YAML::Node params = n["params"] ? n["params"] : YAML::Node(YAML::NodeType::Map);
    std::string pp = join(path, "params");
    read_params(c_, *kind, params, pp, base, client_refs_);
    fill_defaults(c_, *kind, n, pp, base);
    s.host_params.assign(static_cast<std::size_t>(s.hosts), base);
    if (n["host_overrides"]) {
      const YAML::Node ho = n["host_overrides"];
      std::string hp = join(path, "host_overrides");
      if (!ho.IsMap()) {
        c_.error(ho, hp, "must be a map of host index to params", "host_overrides: {0: {...}}");
      } else {
        for (auto it = ho.begin(); it != ho.end(); ++it) {
          if (!it->first.IsScalar()) continue;
          std::string ip = join(hp, it->first.Scalar());
          auto idx = c_.parse(it->first, ip, "a host index", parse_int);
          if (!idx) continue;
          if (*idx < 0 || *idx >= s.hosts) {
            c_.error(it->first, ip,
                     "no host " + it->first.Scalar() + " in a service of " +
                         std::to_string(s.hosts) + " hosts",
                     "an index in [0, " + std::to_string(s.hosts - 1) + "]");
            continue;
          }
          read_params(c_, *kind, it->second, ip, s.host_params[static_cast<std::size_t>(*idx)],
                      client_refs_);
        }
      }
    }
    check_config(*kind, s, params, pp, n["host_overrides"], join(path, "host_overrides"));
    if (!s.machine.empty()) check_pinned_cores(*kind, machines, s, params, pp);
    check_peers(*kind, dc, s, params, pp);
    services_[dc + "." + s.name] = ServiceEntry{kind, std::move(program), s.hosts};
    return s;
  }

  // A Scylla node pins shards_per_node of its machine's cores (Machine::place_pinned) and at
  // least one must stay shared. `scale` shrinks the machine's cores, not a node's shards.
  void check_pinned_cores(const ServiceKind& kind, const std::vector<MachineSpec>& machines,
                          const ServiceSpec& s, const YAML::Node& params, const std::string& pp) {
    if (kind.param("shards_per_node") == nullptr || !c_.diagnostics.empty()) return;
    std::vector<std::string> names;
    const MachineSpec* m = find_machine(machines, s.machine, names);
    if (m == nullptr) return;
    const std::int64_t cores =
        scaled_value(*machine_kind().param("cores"), m->params.get("cores"), s_.scale).integer;
    for (const sim::ParamValues& host : s.host_params) {
      const std::int64_t pinned = host.count("shards_per_node");
      if (pinned < cores) continue;
      const bool here = params.IsMap() && params["shards_per_node"];
      c_.error(here ? params["shards_per_node"] : params,
               here ? join(pp, "shards_per_node") : pp,
               "a node pins " + std::to_string(pinned) + " shards on machine '" + m->name +
                   "' of " + std::to_string(cores) + " cores" +
                   (s_.scale != 1.0 ? " (its cores at scale " + format_real(s_.scale) + ")" : ""),
               "shards_per_node below the machine's cores: at least one stays shared");
      return;
    }
  }

  // The kind's own cross-parameter checks, on each host's merged parameters; one error per
  // service, placed at the parameter the message names ("restart_backoff_max: ...") or, if it
  // names none, at the service's params.
  void check_config(const ServiceKind& kind, const ServiceSpec& s, const YAML::Node& params,
                    const std::string& pp, const YAML::Node& overrides,
                    const std::string& hp) {
    if (!kind.check_config || !c_.diagnostics.empty()) return;
    for (int i = 0; i < s.hosts; ++i) {
      HostContext ctx{s.datacenter, s.name, kind.name, i, s.hosts, s_.scale,
                      scaled_values(kind.params, s.host_params[static_cast<std::size_t>(i)],
                                    s_.scale),
                      s.program, ""};
      try {
        kind.check_config(ctx);
      } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        std::string name = named_param(kind, message);
        YAML::Node at = params;
        std::string path = pp;
        const YAML::Node host = overrides && overrides.IsMap() ? overrides[std::to_string(i)]
                                                               : YAML::Node();
        if (!name.empty() && host && host.IsMap() && host[name]) {
          at = host[name];
          path = join(join(hp, std::to_string(i)), name);
        } else if (!name.empty() && params.IsMap() && params[name]) {
          at = params[name];
          path = join(pp, name);
        }
        c_.error(at, path, message, "values that agree with each other (skysim explain " +
                                        kind.name + ")");
        return;
      }
    }
  }

  // The parameter a model's message is about: its "NAME:" prefix, else the first of the
  // kind's parameter names that appears in it as a word.
  static std::string named_param(const ServiceKind& kind, const std::string& message) {
    const auto colon = message.find(':');
    if (colon != std::string::npos && kind.param(message.substr(0, colon))) {
      return message.substr(0, colon);
    }
    auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::size_t best = std::string::npos;
    std::string name;
    for (const auto& p : kind.params) {
      for (std::size_t at = message.find(p.name); at != std::string::npos;
           at = message.find(p.name, at + 1)) {
        const std::size_t end = at + p.name.size();
        if ((at == 0 || !word_char(message[at - 1])) &&
            (end == message.size() || !word_char(message[end])) && at < best) {
          best = at;
          name = p.name;
        }
      }
    }
    return name;
  }

  std::optional<sim::Time> when(const YAML::Node& n, const std::string& path) {
    if (!epoch_ok_) return std::nullopt;
    auto t = c_.parse(n, path, "a date or offset", [&](const std::string& s) {
      return parse_date_or_offset(s, s_.epoch_unix_ns);
    });
    if (!t) return std::nullopt;
    sim::Time rel = *t - s_.epoch_unix_ns;
    if (rel < 0) {
      c_.error(n, path, "is before the epoch " + sim::format_iso8601(s_.epoch_unix_ns),
               "a date at or after the epoch");
      return std::nullopt;
    }
    if (s_.duration > 0 && rel > s_.duration) {
      c_.error(n, path,
               "is after the end of the run " + sim::format_iso8601(s_.epoch_unix_ns + s_.duration),
               "a date within the scenario's duration");
      return std::nullopt;
    }
    return rel;
  }

  void sources(const YAML::Node& n) {
    if (!n.IsMap()) {
      c_.error(n, "sources", "must be a map of source names", "sources: {readers: {...}}");
      return;
    }
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      std::string path = join("sources", it->first.Scalar());
      SourceSpec src;
      src.name = it->first.Scalar();
      if (!valid_name(src.name)) {
        c_.error(it->first, path, "bad source name", "1-64 letters, digits, - or _");
        continue;
      }
      src.client = src.name;
      const YAML::Node s = it->second;
      if (!c_.keys(s, path,
                   {"client", "from", "target", "rate", "request_size", "diurnal", "start", "stop",
                    "deadline", "enabled", "scale_by", "user_facing", "first_arrival"},
                   {"from", "target", "rate"})) {
        continue;
      }
      bool ok = true;
      if (s["client"]) {
        auto v = c_.scalar(s["client"], join(path, "client"), "a client name");
        if (v && valid_name(*v)) {
          src.client = *v;
        } else if (v) {
          c_.error(s["client"], join(path, "client"), "bad client name",
                   "1-64 letters, digits, - or _");
        }
      }
      if (s["from"]) {
        auto v = c_.scalar(s["from"], join(path, "from"), "a datacenter name");
        if (v && !has_dc(*v)) {
          c_.error(s["from"], join(path, "from"), "no datacenter '" + printable(*v) + "'",
                   one_of(dc_names()));
          ok = false;
        } else if (v) {
          src.from = *v;
        }
      }
      if (s["target"] && !src.from.empty())
        ok = target(s["target"], join(path, "target"), src) && ok;
      if (s["rate"]) {
        auto r = c_.parse(s["rate"], join(path, "rate"), "a rate", parse_rate);
        if (r) src.rate_per_s = *r;
        ok = ok && r.has_value();
      }
      if (s["request_size"]) {
        try {
          src.request_size = parse_distribution(s["request_size"], sim::Quantity::Size);
        } catch (const UnitError& e) {
          c_.error(s["request_size"], join(path, "request_size"), e.what(), e.expected());
        }
      } else {
        src.request_size = parse_distribution_text("{constant: 0B}", sim::Quantity::Size);
      }
      if (s["diurnal"]) diurnal(s["diurnal"], join(path, "diurnal"), src);
      if (s["start"]) {
        if (auto t = when(s["start"], join(path, "start"))) src.start = *t;
      }
      src.stop = s_.duration;
      if (s["stop"]) {
        if (auto t = when(s["stop"], join(path, "stop"))) {
          src.stop = *t;
          if (src.stop < src.start) {
            c_.error(s["stop"], join(path, "stop"), "stop is before start",
                     "a stop date after the start date");
          }
        }
      }
      if (s["deadline"]) {
        auto d = c_.parse(s["deadline"], join(path, "deadline"), "a duration", parse_duration);
        if (d && *d <= 0) {
          c_.error(s["deadline"], join(path, "deadline"), "deadline must be positive",
                   "a duration > 0");
        } else if (d) {
          src.deadline = *d;
        }
      }
      if (s["enabled"]) {
        if (auto b = c_.parse(s["enabled"], join(path, "enabled"), "true or false", parse_bool)) {
          src.enabled = *b;
        }
      }
      if (s["user_facing"]) {
        if (auto b = c_.parse(s["user_facing"], join(path, "user_facing"), "true or false",
                              parse_bool)) {
          src.user_facing = *b;
        }
      }
      if (s["first_arrival"]) {
        const std::string when_first =
            s["first_arrival"].IsScalar() ? s["first_arrival"].Scalar() : "";
        if (when_first == "at_start") {
          src.first_at_start = true;
        } else if (when_first != "drawn") {
          c_.error(s["first_arrival"], join(path, "first_arrival"),
                   "unknown first_arrival '" + printable(when_first) + "'",
                   "drawn (default: one exponential gap after start) or at_start");
        }
      }
      if (s["scale_by"]) {
        const std::string how = s["scale_by"].IsScalar() ? s["scale_by"].Scalar() : "";
        if (how == "size") {
          src.scale_by_size = true;
        } else if (how != "rate") {
          c_.error(s["scale_by"], join(path, "scale_by"), "unknown scale_by '" + how + "'",
                   "rate (default: fewer requests) or size (same rate, smaller requests)");
        }
      }
      source_names_.push_back(src.name);
      if (ok) s_.sources.push_back(std::move(src));
    }
  }

  void diurnal(const YAML::Node& n, const std::string& path, SourceSpec& src) {
    if (!c_.keys(n, path, {"amplitude", "peak"}, {"amplitude", "peak"})) return;
    DiurnalShape d;
    if (n["amplitude"]) {
      if (auto a =
              c_.parse(n["amplitude"], join(path, "amplitude"), "a percentage", parse_percent)) {
        d.amplitude = *a;
      }
    }
    if (n["peak"]) {
      auto p = c_.parse(n["peak"], join(path, "peak"), "a time of day like 18h", parse_duration);
      if (p && *p >= sim::kDay) {
        c_.error(n["peak"], join(path, "peak"), "peak is not a time of day", "a duration < 24h");
      } else if (p) {
        d.peak = *p;
      }
    }
    src.diurnal = d;
  }

  bool target(const YAML::Node& n, const std::string& path, SourceSpec& src) {
    const std::string exp = "service.endpoint or datacenter.service.endpoint";
    auto v = c_.scalar(n, path, exp);
    if (!v) return false;
    auto parts = split_path(*v);
    std::string dc, svc, ep;
    if (parts.size() == 2) {
      svc = parts[0];
      ep = parts[1];
      if (services_.count(src.from + "." + svc)) {
        dc = src.from;
      } else {
        for (const auto& d : s_.datacenters) {
          if (services_.count(d.name + "." + svc)) {
            if (!dc.empty()) {
              c_.error(n, path, "service '" + svc + "' exists in several datacenters", exp);
              return false;
            }
            dc = d.name;
          }
        }
      }
    } else if (parts.size() == 3) {
      dc = parts[0];
      svc = parts[1];
      ep = parts[2];
    } else {
      c_.error(n, path, "bad target '" + printable(*v) + "'", exp);
      return false;
    }
    auto it = services_.find(dc + "." + svc);
    if (dc.empty() || it == services_.end()) {
      c_.error(n, path, "no service '" + printable(svc) + "'" + (dc.empty() ? "" : " in " + dc),
               "a service declared under datacenters");
      return false;
    }
    const std::vector<std::string> eps = endpoints_of(it->second);
    if (std::find(eps.begin(), eps.end(), ep) == eps.end()) {
      c_.error(n, path,
               "service '" + svc + "' (" + it->second.kind->name + ") has no endpoint '" +
                   printable(ep) + "'" + suggestion(ep, eps),
               one_of(eps));
      return false;
    }
    src.target_datacenter = dc;
    src.target_service = svc;
    src.endpoint = ep;
    return true;
  }

  void timeline(const YAML::Node& n) {
    if (!n.IsSequence()) {
      c_.error(n, "timeline", "must be a list of dated entries", "- at: 2026-04-06T17:00:00Z");
      return;
    }
    std::optional<sim::Time> last;
    for (std::size_t i = 0; i < n.size(); ++i) {
      std::string path = join("timeline", std::to_string(i));
      const YAML::Node e = n[i];
      if (!c_.keys(e, path, {"at", "note", "set", "start", "stop", "crash", "restart"}, {"at"})) {
        continue;
      }
      TimelineEntry entry;
      if (!e["at"]) continue;
      auto at = when(e["at"], join(path, "at"));
      if (!at) continue;
      if (last && *at < *last) {
        c_.error(e["at"], join(path, "at"), "dates out of order: before the previous entry",
                 "entries sorted by date");
      }
      last = *at;
      entry.at = *at;
      if (e["note"]) c_.scalar(e["note"], join(path, "note"), "text");
      if (e["set"]) sets(e["set"], join(path, "set"), entry);
      for (const char* verb : {"start", "stop"}) {
        if (!e[verb]) continue;
        for (const auto& name : names(e[verb], join(path, verb))) {
          if (std::find(source_names_.begin(), source_names_.end(), name) == source_names_.end()) {
            c_.error(e[verb], join(path, verb), "no source '" + printable(name) + "'",
                     one_of(source_names_));
            continue;
          }
          entry.actions.push_back(
              {std::string(verb) == "start" ? ActionType::StartSource : ActionType::StopSource,
               name,
               "",
               {}});
        }
      }
      for (const char* verb : {"crash", "restart"}) {
        if (!e[verb]) continue;
        for (const auto& target : names(e[verb], join(path, verb))) {
          for (const auto& host : hosts_of(e[verb], join(path, verb), target, 1.0)) {
            entry.actions.push_back(
                {std::string(verb) == "crash" ? ActionType::Crash : ActionType::Restart,
                 host,
                 "",
                 {}});
          }
        }
      }
      s_.timeline.push_back(std::move(entry));
    }
  }

  // "dc/service/i" -> that host; "dc/service" -> the first ceil(fraction * hosts) hosts.
  std::vector<std::string> hosts_of(const YAML::Node& n, const std::string& path,
                                    const std::string& target, double fraction) {
    std::vector<std::string> out;
    std::vector<std::string> parts;
    std::string cur;
    for (char ch : target) {
      if (ch == '/') {
        parts.push_back(cur);
        cur.clear();
      } else {
        cur += ch;
      }
    }
    parts.push_back(cur);
    const ServiceSpec* svc = parts.size() >= 2 ? s_.service(parts[0], parts[1]) : nullptr;
    if (!svc || parts.size() > 3) {
      c_.error(n, path, "no host or service '" + printable(target) + "'",
               "dc/service or dc/service/index");
      return out;
    }
    if (parts.size() == 3) {
      std::int64_t i = -1;
      try {
        i = parse_int(parts[2]);
      } catch (const UnitError&) {
      }
      if (i < 0 || i >= svc->hosts) {
        c_.error(n, path, "no host '" + printable(target) + "'",
                 "an index in [0, " + std::to_string(svc->hosts - 1) + "]");
        return out;
      }
      out.push_back(target);
      return out;
    }
    auto k = static_cast<int>(std::ceil(fraction * svc->hosts - 1e-9));
    for (int i = 0; i < k; ++i) out.push_back(target + "/" + std::to_string(i));
    return out;
  }

  void sets(const YAML::Node& n, const std::string& path, TimelineEntry& entry) {
    if (!n.IsMap()) {
      c_.error(n, path, "must be a map of parameter path to value",
               "set: {datacenters.east.services.web.params.workers: 8}");
      return;
    }
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      std::string key = it->first.Scalar();
      std::string kp = path + "." + key;
      auto p = split_path(key);
      if (p.size() == 3 && p[0] == "sources" && p[2] == "rate") {
        if (std::find(source_names_.begin(), source_names_.end(), p[1]) == source_names_.end()) {
          c_.error(it->first, kp, "no source '" + printable(p[1]) + "'", one_of(source_names_));
          continue;
        }
        if (auto r = c_.parse(it->second, kp, "a rate", parse_rate)) {
          sim::ParamValue v;
          v.type = sim::ParamType::Rate;
          v.number = *r;
          v.text = format_rate(*r);
          entry.actions.push_back({ActionType::SetSourceRate, p[1], "rate", v});
        }
        continue;
      }
      if (p.size() >= 7 && p[0] == "datacenters" && p[2] == "services" && p[4] == "program") {
        deploy(it->first, it->second, key, kp, p, entry);
        continue;
      }
      if (p.size() == 6 && p[0] == "datacenters" && p[2] == "machines" && p[4] == "params") {
        set_machine(it->first, it->second, kp, p, entry);
        continue;
      }
      bool all_hosts = p.size() == 6 && p[4] == "params";
      bool one_host = p.size() == 7 && p[4] == "host_overrides";
      if (p[0] != "datacenters" || p.size() < 4 || p[2] != "services" ||
          (!all_hosts && !one_host)) {
        c_.error(it->first, kp, "cannot set '" + printable(key) + "' at run time",
                 "datacenters.DC.services.SVC.params.NAME, "
                 "datacenters.DC.services.SVC.host_overrides.I.NAME, "
                 "datacenters.DC.machines.M.params.NAME or sources.SRC.rate");
        continue;
      }
      const ServiceSpec* svc = s_.service(p[1], p[3]);
      const ServiceKind* kind = svc ? reg_.find(svc->kind) : nullptr;
      if (!kind) {
        c_.error(it->first, kp, "no service '" + printable(p[1] + "." + p[3]) + "'",
                 "a declared datacenter and service");
        continue;
      }
      const sim::ParamSpec* spec = kind->param(p.back());
      if (!spec) {
        c_.error(it->first, kp, "unknown parameter '" + printable(p.back()) + "' of " + kind->name,
                 one_of(param_names(*kind)));
        continue;
      }
      if (!spec->settable) {
        c_.error(it->first, kp, spec->name + " of " + kind->name + " cannot change during a run",
                 "a parameter marked settable (see skysim explain " + kind->name + ")");
        continue;
      }
      if (!svc->machine.empty() && machine_kind().param(spec->name) != nullptr) {
        c_.error(it->first, kp,
                 spec->name + " is the machine's: set it on machine '" + svc->machine + "'",
                 "datacenters." + p[1] + ".machines." + svc->machine + ".params." + spec->name);
        continue;
      }
      auto v = parse_param(c_, *spec, it->second, kp);
      if (!v) continue;
      std::vector<int> hosts;
      if (all_hosts) {
        for (int i = 0; i < svc->hosts; ++i) hosts.push_back(i);
      } else {
        std::int64_t i = -1;
        try {
          i = parse_int(p[5]);
        } catch (const UnitError&) {
        }
        if (i < 0 || i >= svc->hosts) {
          c_.error(it->first, kp, "no host " + printable(p[5]),
                   "an index in [0, " + std::to_string(svc->hosts - 1) + "]");
          continue;
        }
        hosts.push_back(static_cast<int>(i));
      }
      for (int h : hosts) {
        entry.actions.push_back(
            {ActionType::SetParam, p[1] + "/" + p[3] + "/" + std::to_string(h), spec->name, *v});
      }
    }
  }

  // A timeline change of a machine's settable parameter (`datacenters.DC.machines.M.params.NAME`,
  // tcp_tw_reuse): every machine of that name.
  void set_machine(const YAML::Node& key, const YAML::Node& value, const std::string& kp,
                   const std::vector<std::string>& p, TimelineEntry& entry) {
    const MachineSpec* m = nullptr;
    std::vector<std::string> names;
    for (const DatacenterSpec& dc : s_.datacenters) {
      if (dc.name == p[1]) m = find_machine(dc.machines, p[3], names);
    }
    if (!m) {
      c_.error(key, kp, "no machine '" + printable(p[1] + "." + p[3]) + "'" + suggestion(p[3], names),
               names.empty() ? "a machine under datacenters." + p[1] + ".machines" : one_of(names));
      return;
    }
    const sim::ParamSpec* spec = machine_kind().param(p[5]);
    if (!spec) {
      c_.error(key, kp, "unknown parameter '" + printable(p[5]) + "' of a machine",
               one_of(param_names(machine_kind())));
      return;
    }
    if (!spec->settable) {
      c_.error(key, kp, spec->name + " of a machine cannot change during a run",
               "a parameter marked settable (see skysim explain machine)");
      return;
    }
    auto v = parse_param(c_, *spec, value, kp);
    if (!v) return;
    for (int i = 0; i < m->count; ++i) {
      entry.actions.push_back({ActionType::SetMachineParam, m->path(i), spec->name, *v});
    }
  }

  // A timeline change of a program's client or step (`...program.clients.C.NAME`, or a step's
  // path and NAME): a deploy, which every host of the service applies by replacing its process.
  void deploy(const YAML::Node& key_node, const YAML::Node& value, const std::string& key,
              const std::string& kp, const std::vector<std::string>& p, TimelineEntry& entry) {
    const ServiceSpec* svc = s_.service(p[1], p[3]);
    if (!svc || !svc->program) {
      c_.error(key_node, kp,
               svc ? "service '" + printable(p[1] + "." + p[3]) + "' runs no program"
                   : "no service '" + printable(p[1] + "." + p[3]) + "'",
               "a go-service's datacenters.DC.services.SVC.program.clients.C.NAME or a step's "
               "path and NAME");
      return;
    }
    const std::size_t dot = key.rfind('.');
    const std::string owner = key.substr(0, dot);
    const std::string name = key.substr(dot + 1);
    std::string why;
    const sim::ParamSpec* spec = deployable_param(*svc->program, owner, name, why);
    if (!spec) {
      c_.error(key_node, kp, "cannot deploy '" + printable(key) + "': " + why,
               "a client's datacenters.DC.services.SVC.program.clients.C.NAME or a step's "
               "...program.handlers.H.I.STEP.NAME (skysim explain go-service)");
      return;
    }
    auto v = parse_param(c_, *spec, value, kp);
    if (!v) return;
    for (int h = 0; h < svc->hosts; ++h) {
      entry.actions.push_back(
          {ActionType::SetParam, p[1] + "/" + p[3] + "/" + std::to_string(h), key, *v});
    }
  }

  void faults(const YAML::Node& n) {
    if (!n.IsSequence()) {
      c_.error(n, "faults", "must be a list of faults", "- {type: crash, at: +5m, target: ...}");
      return;
    }
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string path = join("faults", std::to_string(i));
      const YAML::Node f = n[i];
      // `enabled: false` (a variant's way to take a fault out) is checked like any other fault,
      // then leaves nothing in the timeline.
      const std::size_t before = s_.timeline.size();
      fault(f, path);
      if (f.IsMap() && f["enabled"]) {
        auto on = c_.parse(f["enabled"], join(path, "enabled"), "true or false", parse_bool);
        if (on && !*on) s_.timeline.resize(before);
      }
    }
  }

  void fault(const YAML::Node& f, const std::string& path) {
    if (!c_.keys(f, path, {"type", "at", "target", "duration", "strength", "enabled"},
                 {"type", "at", "target"})) {
      return;
    }
    if (!f["type"] || !f["at"] || !f["target"]) return;
    auto type = c_.scalar(f["type"], join(path, "type"), "crash");
    if (type && *type != "crash") {
      if (const FaultKindSpec* kind = find_fault_kind(*type)) {
        window_fault(f, path, *kind);
      } else {
        c_.error(f["type"], join(path, "type"), "unknown fault type '" + printable(*type) + "'",
                 "one of: " + fault_type_names());
      }
      return;
    }
    auto at = when(f["at"], join(path, "at"));
    double strength = 1.0;
    if (f["strength"]) {
      auto s = c_.parse(f["strength"], join(path, "strength"), "a percentage", parse_percent);
      if (!s) return;
      strength = *s;
    }
    auto target = c_.scalar(f["target"], join(path, "target"), "dc/service or dc/service/i");
    if (!at || !target || !type) return;
    auto hosts = hosts_of(f["target"], join(path, "target"), *target, strength);
    TimelineEntry crash{*at, {}};
    for (const auto& h : hosts) crash.actions.push_back({ActionType::Crash, h, "", {}});
    s_.timeline.push_back(std::move(crash));
    if (f["duration"]) {
      auto d = c_.parse(f["duration"], join(path, "duration"), "a duration", parse_duration);
      if (d && (*d <= 0 || *d > kMaxDuration)) {
        c_.error(f["duration"], join(path, "duration"), "fault duration out of range",
                 "a duration > 0");
      } else if (d && *at + *d <= s_.duration) {
        TimelineEntry restart{*at + *d, {}};
        for (const auto& h : hosts) restart.actions.push_back({ActionType::Restart, h, "", {}});
        s_.timeline.push_back(std::move(restart));
      }
    }
  }

  // A fault that drives a settable parameter for a window (scenarios/fault_kinds.hpp): the
  // target's kind must have that parameter, the strength must parse as it (and not be
  // negative), and `at + duration` puts each host's own value back.
  void window_fault(const YAML::Node& f, const std::string& path, const FaultKindSpec& kind) {
    auto at = when(f["at"], join(path, "at"));
    auto target = c_.scalar(f["target"], join(path, "target"), "dc/service or dc/service/i");
    if (!at || !target) return;
    auto hosts = hosts_of(f["target"], join(path, "target"), *target, 1.0);
    if (hosts.empty()) return;
    auto slash = hosts[0].find('/');
    const ServiceSpec* svc =
        s_.service(hosts[0].substr(0, slash),
                   hosts[0].substr(slash + 1, hosts[0].rfind('/') - slash - 1));
    const ServiceKind* sk = svc ? reg_.find(svc->kind) : nullptr;
    const sim::ParamSpec* spec = sk ? sk->param(kind.param) : nullptr;
    if (!spec || !spec->settable) {
      std::vector<std::string> with;
      for (const ServiceKind* k : reg_.kinds()) {
        if (const auto* p = k->param(kind.param); p && p->settable) with.push_back(k->name);
      }
      c_.error(f["target"], join(path, "target"),
               "'" + printable(*target) + "' is a " + (svc ? svc->kind : std::string("?")) +
                   " service, which has no " + kind.type + " fault",
               "a host or service of kind " + join_names(with));
      return;
    }
    if (kind.service_wide && std::count(target->begin(), target->end(), '/') != 1) {
      c_.error(f["target"], join(path, "target"),
               kind.type + " acts on a whole service, not one host", "dc/service");
      return;
    }
    sim::ParamValue on;
    if (kind.switch_on) {
      if (f["strength"]) {
        c_.error(f["strength"], join(path, "strength"), kind.type + " takes no strength",
                 "leave it out (the fault is on for its duration)");
        return;
      }
      on = parse_scalar_param(*spec, "true");
    } else {
      if (!f["strength"]) {
        c_.error(f, path, kind.type + " needs a strength", "strength: " + kind.strength);
        return;
      }
      const YAML::Node st = f["strength"];
      if (st.IsScalar() && !st.Scalar().empty() && st.Scalar()[0] == '-') {
        c_.error(st, join(path, "strength"), "strength must not be negative", kind.strength);
        return;
      }
      auto v = parse_param(c_, *spec, st, join(path, "strength"));
      if (!v) return;
      on = *v;
    }
    std::optional<sim::Duration> length;
    if (f["duration"]) {
      length = c_.parse(f["duration"], join(path, "duration"), "a duration", parse_duration);
      if (!length) return;
      if (*length <= 0 || *length > kMaxDuration) {
        c_.error(f["duration"], join(path, "duration"), "fault duration out of range",
                 "a duration > 0");
        return;
      }
    }
    TimelineEntry begin{*at, {}}, end{length ? *at + *length : 0, {}};
    for (const auto& h : hosts) {
      int index = std::stoi(h.substr(h.rfind('/') + 1));
      begin.actions.push_back({ActionType::SetParam, h, kind.param, on});
      end.actions.push_back({ActionType::SetParam, h, kind.param,
                             svc->host_params.at(static_cast<std::size_t>(index)).get(kind.param)});
    }
    s_.timeline.push_back(std::move(begin));
    if (length && *at + *length <= s_.duration) s_.timeline.push_back(std::move(end));
  }

  bool has_dc(const std::string& n) const {
    for (const auto& d : s_.datacenters) {
      if (d.name == n) return true;
    }
    return false;
  }
  std::vector<std::string> dc_names() const {
    std::vector<std::string> out;
    for (const auto& d : s_.datacenters) out.push_back(d.name);
    return out;
  }

  Checker& c_;
  const Registry& reg_;
  Scenario& s_;
  bool epoch_ok_ = false;
  std::map<std::string, ServiceEntry> services_;  // "dc.service" -> kind and program
  std::vector<std::string> source_names_;
  std::vector<ClientReference> client_refs_;

  void check_client_references() {
    std::vector<std::string> clients;
    for (const auto& src : s_.sources) {
      if (std::find(clients.begin(), clients.end(), src.client) == clients.end()) {
        clients.push_back(src.client);
      }
    }
    for (const auto& ref : client_refs_) {
      std::size_t start = 0;
      while (start < ref.clients.size()) {
        std::size_t end = std::min(ref.clients.find(',', start), ref.clients.size());
        std::string name = ref.clients.substr(start, end - start);
        start = end + 1;
        if (name.empty() || std::find(clients.begin(), clients.end(), name) != clients.end()) {
          continue;
        }
        c_.diagnostics.push_back({ref.where, ref.path,
                                  "no source has client '" + printable(name) + "'" +
                                      suggestion(name, clients),
                                  one_of(clients)});
      }
    }
  }
};

// Applies one --set to the document: walks the path, creating missing map keys.
// Puts `value` at `path` (dots through maps, list indices) in the document; `where` names the
// setting in messages.
void put_at_path(YAML::Node root, const std::string& path, const YAML::Node& value,
                 const std::string& where, std::vector<Diagnostic>& diags) {
  auto parts = split_path(path);
  for (const auto& p : parts) {
    if (p.empty()) {
      diags.push_back({where, path, "empty segment in path", "keys joined by dots"});
      return;
    }
  }
  YAML::Node cur;
  cur.reset(root);
  std::string walked;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& key = parts[i];
    bool last = i + 1 == parts.size();
    if (cur.IsSequence()) {
      std::int64_t idx = -1;
      try {
        idx = parse_int(key);
      } catch (const UnitError&) {
      }
      if (idx < 0 || static_cast<std::size_t>(idx) >= cur.size()) {
        diags.push_back({where, join(walked, key),
                         "no element " + key + " in the list at '" + walked + "'",
                         "an index in [0, " + std::to_string(cur.size()) + ")"});
        return;
      }
      if (last) {
        cur[static_cast<std::size_t>(idx)] = value;
        return;
      }
      YAML::Node next = cur[static_cast<std::size_t>(idx)];
      cur.reset(next);
    } else if (cur.IsMap() || cur.IsNull()) {
      if (last) {
        cur[key] = value;
        return;
      }
      YAML::Node next = cur[key];
      if (!next.IsDefined()) {  // a key the file does not have: make it a map to walk into
        cur[key] = YAML::Node(YAML::NodeType::Map);
        next = cur[key];
      }
      cur.reset(next);
    } else {
      diags.push_back({where, join(walked, key), "'" + walked + "' is a single value, not a map",
                       "a path through maps and lists"});
      return;
    }
    walked = join(walked, key);
  }
}

void apply_override(YAML::Node root, const Override& o, std::vector<Diagnostic>& diags) {
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception&) {
    value = YAML::Node(o.value);
  }
  if (!value.IsDefined() || value.IsNull()) value = YAML::Node(o.value);
  put_at_path(root, o.path, value, "--set " + o.path, diags);
}

// A named variant of the scenario (`variants: {NAME: {note: ..., set: {PATH: VALUE}}}`),
// chosen by `variant: NAME` in the file or `--set variant=NAME`: its settings are applied as
// overrides before the document is read, and the command line's own --set still wins (they are
// applied again after the variant's).
void apply_variant(YAML::Node root, const std::string& file, const std::vector<Override>& cli,
                   std::vector<Diagnostic>& diags) {
  const YAML::Node chosen = root["variant"];
  if (!chosen.IsDefined()) return;
  bool from_cli = false;
  for (const Override& o : cli) from_cli = from_cli || o.path == "variant";
  auto where = [&](const YAML::Node& n) {
    if (n.IsDefined() && n.Mark().line >= 0) {
      return file + ":" + std::to_string(n.Mark().line + 1) + ":" +
             std::to_string(n.Mark().column + 1);
    }
    return file;
  };
  const YAML::Node variants = root["variants"];
  std::vector<std::string> known;
  if (variants.IsMap()) {
    for (auto it = variants.begin(); it != variants.end(); ++it) {
      if (it->first.IsScalar()) known.push_back(it->first.Scalar());
    }
  }
  if (!chosen.IsScalar()) {
    diags.push_back({from_cli ? "--set variant" : where(chosen), "variant",
                     "must be a variant's name", one_of(known)});
    return;
  }
  const std::string name = chosen.Scalar();
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    diags.push_back({from_cli ? "--set variant" : where(chosen), "variant",
                     "unknown variant '" + printable(name) + "'" + suggestion(name, known),
                     known.empty() ? "a name under variants:" : one_of(known)});
    return;
  }
  YAML::Node set = variants[name]["set"];
  const std::string path = "variants." + name + ".set";
  if (!set.IsMap()) {
    diags.push_back({where(variants[name]), path, "must be a map of path: value",
                     "set: {datacenters.east.services.dataplane.params.log_write_lock: false}"});
    return;
  }
  std::vector<std::string> moved;  // entries whose node now stands at their path
  for (auto it = set.begin(); it != set.end(); ++it) {
    if (!it->first.IsScalar() || !it->second.IsDefined() || it->second.IsNull()) {
      diags.push_back({where(it->first), path, "each entry must be path: value", ""});
      continue;
    }
    if (it->second.IsScalar()) {
      apply_override(root, {it->first.Scalar(), it->second.Scalar()}, diags);
    } else {
      // A list or map (a variant's own timeline): the file's node itself, not a copy
      // (YAML::Clone drops the marks), so that what is wrong in it is reported at its line;
      // the variant keeps a copy (below), so no node is reachable by two paths.
      put_at_path(root, it->first.Scalar(), it->second, where(it->first), diags);
      moved.push_back(it->first.Scalar());
    }
  }
  for (const std::string& key : moved) set[key] = YAML::Clone(set[key]);
  for (const Override& o : cli) apply_override(root, o, diags);
}

}  // namespace

Override parse_override(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ScenarioError(
        {{"--set " + text, "", "expected path=value", "e.g. sources.readers.rate=50/s"}});
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Scenario load_scenario_text(const std::string& text, const std::string& file_name,
                            const Registry& registry, const LoadOptions& options) {
  Scenario s;
  s.file = file_name;
  if (text.size() > kMaxFileBytes) {
    throw ScenarioError({{file_name, "", "file is larger than 16 MiB", ""}});
  }
  if (text.find('\0') != std::string::npos) {
    throw ScenarioError({{file_name, "", "file contains NUL bytes: not a YAML text file", ""}});
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    std::string where = file_name;
    if (e.mark.line >= 0) {
      where += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
    }
    throw ScenarioError({{where, "", "YAML syntax error: " + e.msg, ""}});
  }
  if (!root.IsDefined() || root.IsNull()) {
    throw ScenarioError({{file_name, "", "empty scenario file",
                          "a map with name, epoch, duration, "
                          "datacenters"}});
  }
  if (!root.IsMap()) {
    std::string where = file_name + ":" + std::to_string(root.Mark().line + 1) + ":" +
                        std::to_string(root.Mark().column + 1);
    throw ScenarioError(
        {{where, "", "the top level must be a map", "keys like name:, epoch:, ..."}});
  }
  std::vector<Diagnostic> diags;
  std::vector<std::string> override_paths;
  AliasIndex aliases;
  try {
    // Before anything writes into the document: every alias use gets its own copy, so an
    // override of one path changes that path only.
    aliases = AliasIndex::scan(text, kMaxNodes);
    if (!aliases.problems().empty()) {
      for (const auto& p : aliases.problems()) {
        std::string where = file_name;
        if (p.at) {
          where += ":" + std::to_string(p.at->line + 1) + ":" + std::to_string(p.at->column + 1);
        }
        diags.push_back({where, "", p.message, ""});
      }
      throw ScenarioError(std::move(diags));
    }
    // Deeper documents are refused by the checker below; copying them would only recurse.
    if (aliases.max_depth() <= kMaxDepth + 1) root = unshare_aliases(root, aliases);
    for (const auto& o : options.overrides) {
      apply_override(root, o, diags);
      override_paths.push_back(o.path);
    }
    apply_variant(root, file_name, options.overrides, diags);
    if (options.seed) root["seed"] = std::to_string(*options.seed);
    Checker checker(file_name, override_paths, aliases);
    checker.diagnostics = std::move(diags);
    checker.walk(root, "", 0);
    Loader(checker, registry, s).load(root);
    diags = std::move(checker.diagnostics);
  } catch (const YAML::Exception& e) {
    // yaml-cpp throws on a few odd shapes (e.g. a map key that is itself a map being
    // subscripted); report it instead of crashing.
    diags.push_back({file_name, "", std::string("malformed document: ") + e.msg, ""});
  }
  if (!diags.empty()) throw ScenarioError(std::move(diags));
  if (!options.seed && !root["seed"]) root["seed"] = std::to_string(s.seed);
  s.document = root;
  return s;
}

Scenario load_scenario_file(const std::string& path, const Registry& registry,
                            const LoadOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ScenarioError({{path, "", "is a directory, not a scenario file",
                          "a YAML file such as scenarios/demo.yaml"}});
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ScenarioError({{path, "", std::filesystem::exists(path, ec) ? "cannot read the file"
                                                                       : "no such file",
                          "a readable scenario file"}});
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_scenario_text(ss.str(), path, registry, options);
}

std::string resolved_yaml(const Scenario& s) {
  YAML::Emitter out;
  out << s.document;
  return "# Resolved by skysim from " + s.file + " (overrides applied, seed fixed).\n" +
         std::string(out.c_str()) + "\n";
}

std::string scenario_hash(const Scenario& s) {
  YAML::Node doc = YAML::Clone(s.document);
  if (doc.IsMap()) doc.remove("seed");
  YAML::Emitter out;
  out << doc;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(XXH64(out.c_str(), out.size(), 0)));
  return hex;
}

}  // namespace skysim::scenarios
