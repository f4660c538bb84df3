#pragma once
// A Go service's program as a scenario declares it (issue 26, docs/design/composition.md):
// named clients to other services, and handlers made of steps from a closed, documented set.
// Not a general language: no variables, no branches, no loops except an errgroup's `tasks`
// copies of its body. Each step type declares its parameters once (sim::ParamSpec), so the
// loader, `skysim explain go-service` and docs/scenario-reference.md read one declaration.
//
//   program:
//     clients:
//       backend: { target: store, max_idle: 2, timeout: 500ms }
//     handlers:
//       get_page:
//         - cpu: { time: {constant: 50us} }
//         - errgroup:
//             tasks: 20
//             limit: 8
//             do:
//               - call: { client: backend, endpoint: get }
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/params.hpp"

namespace skysim::scenarios {

enum class StepKind {
  kCpu,
  kSleep,
  kAlloc,
  kCall,
  kCacheGet,
  kCacheSet,
  kErrgroup,
  kSemaphore,
  kUidAlloc,
  kFdbTxn,
  kLog,
  kFail,
  kMaxItems,
  kFollowerPages,
  kLossyFilter,
  kReadSet,
  kHyperDetect,
  kShardQueue
};

struct StepType {
  StepKind kind;
  std::string name;  // as written in a handler: `- NAME: {params}`
  std::string doc;   // one line: what the Go code it stands for does
  std::vector<sim::ParamSpec> params;
  std::string body_key = {};  // the key of its nested steps (`do`, `on_miss`); "" = none
  bool has_body() const { return !body_key.empty(); }
};

// Every step type, in the order the reference lists them.
const std::vector<StepType>& step_types();
const StepType* find_step_type(std::string_view name);
std::vector<std::string> step_type_names();

struct Step {
  StepKind kind = StepKind::kCpu;
  sim::ParamValues params;
  std::vector<Step> body;  // errgroup's, semaphore's and follower_pages' `do`, cache_get's `on_miss`
  std::string where;       // file:line:column, for messages at run time
  std::string path;        // its --set path: "datacenters.east.services.api.program.handlers.get.0"
  std::uint32_t slot = 0;  // set by the process that runs it: its index of per-step state
};

// The parameters of one client (everything but `target`, which the loader resolves).
std::vector<sim::ParamSpec> client_params();

struct ClientSpec {
  std::string name;
  std::string target_datacenter;  // resolved by the loader
  std::string target_service;
  std::string target_text;  // as written: "service" or "datacenter.service"
  std::string where;        // of `target`
  std::string path;
  sim::ParamValues params;
};

struct Program {
  std::vector<ClientSpec> clients;                 // in file order
  std::map<std::string, std::vector<Step>> handlers;  // by name: the service's endpoints

  std::vector<std::string> endpoints() const;
  const ClientSpec* client(std::string_view name) const;
  // The client or step whose path (ClientSpec::path, Step::path) is `path`; null if none.
  const ClientSpec* client_at(std::string_view path) const;
  ClientSpec* client_at(std::string_view path);
  const Step* step_at(std::string_view path) const;
  Step* step_at(std::string_view path);
};

using ProgramPtr = std::shared_ptr<const Program>;

// A parameter that a deploy may change during a run (a timeline `set` whose path is inside a
// program): `owner` is a client's or a step's path as ClientSpec::path and Step::path hold it,
// `name` one of its parameters. A deploy ships code and config, not new wiring: a step's
// client and endpoint, a client's driver and sidecar flag stay as the loader checked them,
// and a uid_alloc's allocator is built once. Null, with `why` saying so, when it cannot be.
const sim::ParamSpec* deployable_param(const Program& program, std::string_view owner,
                                       std::string_view name, std::string& why);
// The rule above in one sentence, for `skysim explain go-service` and the reference.
std::string deploy_rule();

// Every step, nested ones included (errgroup and semaphore `do`, cache_get `on_miss`), in file
// order: of a list, or of every handler of a program.
void for_each_step(const std::vector<Step>& steps, const std::function<void(const Step&)>& f);
void for_each_step(const Program& program, const std::function<void(const Step&)>& f);

}  // namespace skysim::scenarios
