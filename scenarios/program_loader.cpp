#include "scenarios/program_loader.hpp"

#include <algorithm>
#include <functional>

namespace skysim::scenarios {
namespace {

using namespace yamlcheck;

std::vector<std::string> names_of(const std::vector<sim::ParamSpec>& specs) {
  std::vector<std::string> out;
  for (const auto& p : specs) out.push_back(p.name);
  return out;
}

// Reads one `{param: value}` map against `specs`, then fills the defaults; `extra` keys are
// allowed and left to the caller (an errgroup's `do`).
void read_values(Checker& c, const std::vector<sim::ParamSpec>& specs, const YAML::Node& n,
                 const std::string& path, const YAML::Node& at, sim::ParamValues& out,
                 const std::vector<std::string>& extra = {}) {
  if (n && !n.IsNull()) {
    std::vector<std::string> allowed = names_of(specs);
    allowed.insert(allowed.end(), extra.begin(), extra.end());
    if (c.keys(n, path, allowed)) {
      for (const auto& spec : specs) {
        if (!n[spec.name]) continue;
        if (auto v = parse_param(c, spec, n[spec.name], join(path, spec.name))) {
          out.set(spec.name, std::move(*v));
        }
      }
    }
  }
  for (const auto& spec : specs) {
    if (out.has(spec.name)) continue;
    if (!spec.default_text) {
      if (!n || !n.IsMap() || !n[spec.name]) {
        c.error(n && !n.IsNull() ? n : at, path, "missing required key '" + spec.name + "'",
                spec.doc);
      }
      continue;
    }
    YAML::Node d = spec.type == sim::ParamType::Distribution ? YAML::Load(*spec.default_text)
                                                             : YAML::Node(*spec.default_text);
    if (auto v = parse_param(c, spec, d, join(path, spec.name))) out.set(spec.name, *v);
  }
}

std::vector<Step> read_steps(Checker& c, const YAML::Node& n, const std::string& path,
                             const Program& program) {
  std::vector<Step> steps;
  if (!n.IsSequence() || n.size() == 0) {
    c.error(n, path, "must be a non-empty list of steps", "- STEP: {params}, STEP " +
                                                              one_of(step_type_names()));
    return steps;
  }
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YAML::Node node = n[i];
    const std::string sp = join(path, std::to_string(i));
    if (!node.IsMap() || node.size() != 1 || !node.begin()->first.IsScalar()) {
      c.error(node, sp, "a step is a map of one key, its type",
              "- STEP: {params}, STEP " + one_of(step_type_names()));
      continue;
    }
    const std::string name = node.begin()->first.Scalar();
    const StepType* type = find_step_type(name);
    if (!type) {
      c.error(node.begin()->first, join(sp, name),
              "unknown step '" + printable(name) + "'" + suggestion(name, step_type_names()),
              one_of(step_type_names()));
      continue;
    }
    Step s;
    s.kind = type->kind;
    s.path = join(sp, name);
    s.where = c.where(node, s.path);
    const YAML::Node body = node.begin()->second;
    read_values(c, type->params, body, s.path, node, s.params,
                type->has_body() ? std::vector<std::string>{type->body_key}
                                 : std::vector<std::string>{});
    if (type->has_body()) {
      const std::string& key = type->body_key;
      if (!body.IsMap() || !body[key]) {
        c.error(body.IsDefined() && !body.IsNull() ? body : node, s.path,
                "missing required key '" + key + "'", "the steps it runs");
      } else {
        s.body = read_steps(c, body[key], join(s.path, key), program);
      }
    }
    if (s.params.has("client")) {
      const std::string& client = s.params.string("client");
      if (!program.client(client)) {
        std::vector<std::string> names;
        for (const auto& cl : program.clients) names.push_back(cl.name);
        c.error(body["client"], join(s.path, "client"),
                "no client '" + printable(client) + "' in this program" +
                    suggestion(client, names),
                one_of(names));
      }
    }
    steps.push_back(std::move(s));
  }
  return steps;
}

// Where a step sits decides what it may name: `key: cache` the key of the cache_get whose miss
// runs the call; a lossy_filter and `tasks_from: page` the page of the follower_pages whose
// `do` runs them; `key: item` the follower of the errgroup task (tasks_from: page) running it.
struct Nesting {
  bool in_miss = false;        // inside a cache_get's on_miss
  bool in_pages = false;       // inside a follower_pages' do
  bool has_page = false;       // a page exists: in a follower_pages' do, or after a read_set
  bool in_page_tasks = false;  // inside an errgroup with tasks_from: page
};

void check_nesting(Checker& c, const YAML::Node& steps_node, const std::vector<Step>& steps,
                   Nesting at) {
  // A list with a broken step was read short, and its errors are reported already.
  if (!steps_node.IsSequence() || steps_node.size() != steps.size()) return;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    const YAML::Node body = steps_node[i].begin()->second;
    if (s.kind == StepKind::kReadSet) at.has_page = true;  // for the steps after it
    const std::string key = s.kind == StepKind::kCall && s.params.has("key")
                                ? s.params.choice("key")
                                : std::string();
    if (key == "cache" && !at.in_miss) {
      c.error(body["key"], join(s.path, "key"),
              "key: cache names the key a cache_get missed, and this call is not in one's "
              "on_miss",
              "key: none, or the call inside a cache_get's on_miss");
    }
    if (key == "item" && !at.in_page_tasks) {
      c.error(body["key"], join(s.path, "key"),
              "key: item names the follower of an errgroup task with tasks_from: page, and this "
              "call is not in one",
              "key: none, or the call inside such an errgroup's do");
    }
    if ((s.kind == StepKind::kLossyFilter || s.kind == StepKind::kHyperDetect ||
         s.kind == StepKind::kShardQueue) &&
        (!at.in_pages || at.in_page_tasks)) {
      const std::string name = s.kind == StepKind::kLossyFilter  ? "lossy_filter"
                               : s.kind == StepKind::kHyperDetect ? "hyper_detect"
                                                                  : "shard_queue";
      const std::string verb = s.kind == StepKind::kShardQueue ? " queues" : " narrows";
      c.error(steps_node[i], s.path,
              at.in_page_tasks
                  ? name + verb + " a whole page, and this one runs once per follower (inside "
                                  "an errgroup with tasks_from: page)"
                  : name + verb + " the page of a follower_pages, and this one is not in one's "
                                  "do",
              s.kind == StepKind::kShardQueue
                  ? "a shard_queue step in a follower_pages' do, before its errgroup (left "
                    "nothing to write) or in its place"
                  : "a " + name + " step in a follower_pages' do, before its errgroup");
    }
    const bool page_tasks = s.kind == StepKind::kErrgroup && s.params.has("tasks_from") &&
                            s.params.choice("tasks_from") == "page";
    if (page_tasks && !at.has_page) {
      c.error(body["tasks_from"], join(s.path, "tasks_from"),
              "tasks_from: page runs one goroutine per item of a page (a follower_pages' do, or "
              "after a read_set), and this errgroup has none",
              "tasks_from: tasks or request_size, or the errgroup inside a follower_pages' do "
              "or after a read_set");
    }
    if (s.kind == StepKind::kFollowerPages && at.in_pages) {
      c.error(steps_node[i], s.path, "a follower_pages inside another's do",
              "one follower_pages per handler level: the page a step names must be one");
    }
    const StepType* type = find_step_type(steps_node[i].begin()->first.Scalar());
    if (type && type->has_body() && body.IsMap() && body[type->body_key]) {
      Nesting inner = at;
      inner.in_miss = at.in_miss || s.kind == StepKind::kCacheGet;
      inner.in_pages = at.in_pages || s.kind == StepKind::kFollowerPages;
      inner.has_page = at.has_page || s.kind == StepKind::kFollowerPages;
      inner.in_page_tasks = at.in_page_tasks || page_tasks;
      check_nesting(c, body[type->body_key], s.body, inner);
    }
  }
}

void read_clients(Checker& c, const YAML::Node& n, const std::string& path, Program& program) {
  if (!n.IsMap()) {
    c.error(n, path, "must be a map of client names", "clients: {NAME: {target: SERVICE}}");
    return;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (!it->first.IsScalar()) continue;  // reported by walk()
    ClientSpec cl;
    cl.name = it->first.Scalar();
    cl.path = join(path, cl.name);
    if (!valid_name(cl.name)) {
      c.error(it->first, cl.path, "bad client name", "1-64 letters, digits, - or _");
      continue;
    }
    if (!it->second.IsMap()) {
      c.error(it->second, cl.path, "must be a map", "{target: SERVICE, ...}");
      continue;
    }
    if (!it->second["target"]) {
      c.error(it->second, cl.path, "missing required key 'target'", "service or datacenter.service");
    } else {
      if (auto t = c.scalar(it->second["target"], join(cl.path, "target"),
                            "service or datacenter.service")) {
        cl.target_text = *t;
        cl.where = c.where(it->second["target"], join(cl.path, "target"));
      }
    }
    read_values(c, client_params(), it->second, cl.path, it->second, cl.params, {"target"});
    // The FoundationDB client library keeps its own connections, and the graph store's page
    // time holds its round trip: no pool, dialer or round trip of the host's applies, so a key
    // that sets one would be silently ignored.
    const std::string driver = cl.params.has("driver") ? cl.params.choice("driver") : "";
    if (driver == "fdb" || driver == "graph" || driver == "detector") {
      const std::string why =
          driver == "fdb"     ? "an fdb client (the client library keeps its own connections; "
                                "the cluster model's latencies hold the round trips)"
          : driver == "graph" ? "a graph client (the follow-graph service's page_fetch holds "
                                "the round trip)"
                              : "a detector client (the counters are updated in place)";
      for (auto key = it->second.begin(); key != it->second.end(); ++key) {
        if (!key->first.IsScalar()) continue;
        const std::string& k = key->first.Scalar();
        if (k == "target" || k == "driver") continue;
        c.error(key->first, join(cl.path, k), "'" + k + "' does not apply to " + why,
                "target and driver: " + driver + " only");
      }
    }
    program.clients.push_back(std::move(cl));
  }
}

}  // namespace

std::shared_ptr<Program> read_program(Checker& c, const YAML::Node& n, const std::string& path) {
  if (!c.keys(n, path, {"clients", "handlers"}, {"handlers"})) return nullptr;
  auto program = std::make_shared<Program>();
  if (n["clients"]) read_clients(c, n["clients"], join(path, "clients"), *program);
  const YAML::Node h = n["handlers"];
  const std::string hp = join(path, "handlers");
  if (!h) return nullptr;
  if (!h.IsMap() || h.size() == 0) {
    c.error(h, hp, "must be a non-empty map of handler names", "handlers: {NAME: [steps]}");
    return nullptr;
  }
  for (auto it = h.begin(); it != h.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const std::string name = it->first.Scalar();
    if (!valid_name(name)) {
      c.error(it->first, join(hp, name), "bad handler name", "1-64 letters, digits, - or _");
      continue;
    }
    program->handlers[name] = read_steps(c, it->second, join(hp, name), *program);
    check_nesting(c, it->second, program->handlers[name], Nesting{});
  }
  return program;
}

std::vector<std::string> endpoints_of(const ServiceEntry& e) {
  if (e.program) return e.program->endpoints();
  return e.kind ? e.kind->endpoints : std::vector<std::string>{};
}

namespace {

// Every step that names a client, nested ones included.
void for_each_client_step(const std::vector<Step>& steps,
                          const std::function<void(const Step&)>& f) {
  for_each_step(steps, [&f](const Step& s) {
    if (s.params.has("client")) f(s);
  });
}

void for_each_call(const std::vector<Step>& steps, const std::function<void(const Step&)>& f) {
  for_each_client_step(steps, [&f](const Step& s) {
    if (s.kind == StepKind::kCall) f(s);
  });
}

// A client's protocol decides what it reaches and which steps use it: a gomemcache client a
// memcached service (cache_get, cache_set), an fdb client an fdb service (uid_alloc, fdb_txn);
// net_http and gocql carry Requests to any other kind (call).
struct Protocol {
  const char* driver;  // "" = net_http or gocql
  const char* target_kind;
  const char* steps;  // as messages name them, and the client and the service
  const char* a_client;
  const char* a_service;
};
constexpr Protocol kMemcache{"gomemcache", "memcached", "cache_get or cache_set",
                             "a gomemcache client", "a memcached service"};
constexpr Protocol kFdb{"fdb", "fdb", "uid_alloc or fdb_txn", "an fdb client", "an fdb service"};
constexpr Protocol kGraph{"graph", "follow-graph", "follower_pages or read_set", "a graph client",
                          "a follow-graph service"};
constexpr Protocol kDetector{"detector", "hyper-detector", "hyper_detect", "a detector client",
                             "a hyper-detector service"};
constexpr Protocol kRequests{"", "", "call", "", ""};

const Protocol& protocol_of_driver(const std::string& driver) {
  if (driver == kMemcache.driver) return kMemcache;
  if (driver == kFdb.driver) return kFdb;
  if (driver == kGraph.driver) return kGraph;
  if (driver == kDetector.driver) return kDetector;
  return kRequests;
}
const Protocol& protocol_of_kind(const std::string& kind) {
  if (kind == kMemcache.target_kind) return kMemcache;
  if (kind == kFdb.target_kind) return kFdb;
  if (kind == kGraph.target_kind) return kGraph;
  if (kind == kDetector.target_kind) return kDetector;
  return kRequests;
}
const Protocol& protocol_of_step(StepKind k) {
  if (k == StepKind::kCacheGet || k == StepKind::kCacheSet) return kMemcache;
  if (k == StepKind::kUidAlloc || k == StepKind::kFdbTxn) return kFdb;
  if (k == StepKind::kFollowerPages || k == StepKind::kReadSet) return kGraph;
  if (k == StepKind::kHyperDetect) return kDetector;
  return kRequests;
}
std::string driver_text(const Protocol& p) {
  return *p.driver ? std::string("driver: ") + p.driver : "driver: net_http or gocql";
}

void check_drivers(Checker& c, const std::map<std::string, ServiceEntry>& services) {
  for (const auto& named : services) {
    const ServiceEntry& entry = named.second;  // not a binding: lambdas below capture it
    if (!entry.program) continue;
    for (const auto& cl : entry.program->clients) {
      if (cl.target_service.empty() || !cl.params.has("driver")) continue;
      const ServiceEntry& t = services.at(cl.target_datacenter + "." + cl.target_service);
      if (cl.params.has("local") && cl.params.flag("local") && t.hosts != entry.hosts) {
        c.diagnostics.push_back(
            {cl.where, join(cl.path, "target"),
             "a local client's target runs beside each host: '" + cl.target_service +
                 "' has " + std::to_string(t.hosts) + " hosts, this service " +
                 std::to_string(entry.hosts),
             "as many hosts in both services"});
      }
      const Protocol& speaks = protocol_of_driver(cl.params.choice("driver"));
      const Protocol& needs = protocol_of_kind(t.kind->name);
      if (&speaks != &needs) {
        c.diagnostics.push_back(
            {cl.where, join(cl.path, "target"),
             *speaks.driver ? std::string(speaks.a_client) + " needs " + speaks.a_service +
                                  ", not '" + cl.target_service + "' (" + t.kind->name + ")"
                            : "'" + cl.target_service + "' is " + needs.a_service +
                                  ": its client needs " + driver_text(needs),
             *speaks.driver ? std::string("a service of kind ") + speaks.target_kind
                            : driver_text(needs)});
      }
    }
    for (const auto& [handler, steps] : entry.program->handlers) {
      for_each_client_step(steps, [&](const Step& s) {
        const ClientSpec* cl = entry.program->client(s.params.string("client"));
        if (!cl || !cl->params.has("driver")) return;
        const Protocol& client = protocol_of_driver(cl->params.choice("driver"));
        const Protocol& step = protocol_of_step(s.kind);
        if (s.kind == StepKind::kShardQueue && !cl->target_service.empty()) {
          const auto t = services.find(cl->target_datacenter + "." + cl->target_service);
          if (cl->params.choice("driver") != "gocql" ||
              (t != services.end() && t->second.kind->name != "scylla")) {
            c.diagnostics.push_back(
                {s.where, join(s.path, "client"),
                 "shard_queue routes each write to its shard's lane through the shard-aware "
                 "driver, and client '" + cl->name + "' is not a gocql client to a scylla service",
                 "a client with driver: gocql whose target is a scylla service"});
            return;
          }
        }
        if (&client != &step) {
          c.diagnostics.push_back(
              {s.where, join(s.path, "client"),
               *step.driver
                   ? "client '" + cl->name + "' is not " + step.a_client
                   : "client '" + cl->name + "' is " + client.a_client + ": use " + client.steps,
               *step.driver ? "a client with " + driver_text(step) : "a net_http or gocql client"});
        }
      });
    }
  }
}

std::string datacenter_of(const std::string& key) { return key.substr(0, key.find('.')); }

void resolve_targets(Checker& c, std::map<std::string, ServiceEntry>& services,
                     const std::vector<std::string>& datacenters) {
  for (auto& [key, entry] : services) {
    if (!entry.program) continue;
    for (auto& cl : entry.program->clients) {
      if (cl.target_text.empty()) continue;  // reported when read
      const std::string tp = join(cl.path, "target");
      const std::string exp = "service or datacenter.service";
      std::vector<std::string> parts = split_path(cl.target_text);
      std::string dc;
      std::string svc;
      if (parts.size() == 1) {
        svc = parts[0];
        if (services.count(datacenter_of(key) + "." + svc)) {
          dc = datacenter_of(key);
        } else {
          for (const auto& d : datacenters) {
            if (!services.count(d + "." + svc)) continue;
            if (!dc.empty()) {
              c.diagnostics.push_back(
                  {cl.where, tp, "service '" + svc + "' exists in several datacenters", exp});
              dc.clear();
              break;
            }
            dc = d;
          }
        }
      } else if (parts.size() == 2) {
        dc = parts[0];
        svc = parts[1];
      }
      if (dc.empty() || !services.count(dc + "." + svc)) {
        std::vector<std::string> names;  // "service" in this datacenter, else "dc.service"
        for (const auto& [k, e] : services) {
          names.push_back(datacenter_of(k) == datacenter_of(key) ? k.substr(k.find('.') + 1) : k);
        }
        c.diagnostics.push_back({cl.where, tp,
                                 "no service '" + printable(cl.target_text) + "'" +
                                     suggestion(cl.target_text, names),
                                 "a service declared under datacenters (" + exp + ")"});
        continue;
      }
      cl.target_datacenter = dc;
      cl.target_service = svc;
    }
  }
}

void check_endpoints(Checker& c, const std::map<std::string, ServiceEntry>& services) {
  for (const auto& named : services) {
    const ServiceEntry& entry = named.second;  // not a binding: lambdas below capture it
    if (!entry.program) continue;
    for (const auto& [handler, steps] : entry.program->handlers) {
      for_each_call(steps, [&](const Step& s) {
        if (!s.params.has("client") || !s.params.has("endpoint")) return;
        const ClientSpec* cl = entry.program->client(s.params.string("client"));
        if (!cl || cl->target_service.empty()) return;  // reported already
        const ServiceEntry& target = services.at(cl->target_datacenter + "." + cl->target_service);
        const std::vector<std::string> eps = endpoints_of(target);
        const std::string& ep = s.params.string("endpoint");
        if (std::find(eps.begin(), eps.end(), ep) == eps.end()) {
          c.diagnostics.push_back(
              {s.where, join(s.path, "endpoint"),
               "service '" + cl->target_service + "' (" + target.kind->name +
                   ") has no endpoint '" + printable(ep) + "'" + suggestion(ep, eps),
               one_of(eps)});
        }
      });
    }
  }
}

// Depth-first over "dc.service.handler" nodes; an edge back to a node on the stack closes a
// cycle, reported at the call that closes it with the whole chain.
void check_cycles(Checker& c, const std::map<std::string, ServiceEntry>& services) {
  struct Edge {
    std::string to;
    const Step* call;
  };
  std::map<std::string, std::vector<Edge>> edges;
  for (const auto& named : services) {
    const ServiceEntry& entry = named.second;  // not a binding: lambdas below capture it
    if (!entry.program) continue;
    for (const auto& [handler, steps] : entry.program->handlers) {
      auto& out = edges[named.first + "." + handler];
      for_each_call(steps, [&](const Step& s) {
        const ClientSpec* cl = entry.program->client(s.params.string("client"));
        if (!cl || cl->target_service.empty()) return;
        const std::string target = cl->target_datacenter + "." + cl->target_service;
        const ServiceEntry& t = services.at(target);
        if (t.program && t.program->handlers.count(s.params.string("endpoint"))) {
          out.push_back({target + "." + s.params.string("endpoint"), &s});
        }
      });
    }
  }
  std::map<std::string, int> colour;  // 0 new, 1 on the stack, 2 done
  std::vector<std::string> stack;
  std::function<void(const std::string&)> visit = [&](const std::string& node) {
    colour[node] = 1;
    stack.push_back(node);
    for (const auto& e : edges[node]) {
      if (colour[e.to] == 1) {
        std::string chain;
        auto from = std::find(stack.begin(), stack.end(), e.to);
        for (auto it = from; it != stack.end(); ++it) chain += *it + " -> ";
        c.diagnostics.push_back({e.call->where, e.call->path,
                                 "call cycle: " + chain + e.to + " (a request would never finish)",
                                 "calls that end at a service without a program or a handler "
                                 "that calls nothing back"});
      } else if (colour[e.to] == 0) {
        visit(e.to);
      }
    }
    stack.pop_back();
    colour[node] = 2;
  };
  for (const auto& [node, out] : edges) {
    if (colour[node] == 0) visit(node);
  }
}

}  // namespace

void check_program_wiring(Checker& c, std::map<std::string, ServiceEntry>& services,
                          const std::vector<std::string>& datacenters) {
  resolve_targets(c, services, datacenters);
  const std::size_t before = c.diagnostics.size();
  check_drivers(c, services);
  if (c.diagnostics.size() > before) return;  // endpoints and cycles of mis-wired clients mislead
  check_endpoints(c, services);
  check_cycles(c, services);
}

}  // namespace skysim::scenarios
