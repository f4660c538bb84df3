// The kinds the project ships, registered explicitly (static libraries drop self-registering
// objects). Kept apart from model_registry.cpp so tools that need only the registry machinery
// (the loader fuzzer) do not link every model.
#include "scenarios/fdb_service.hpp"
#include "scenarios/follow_graph_service.hpp"
#include "scenarios/hyper_detector_service.hpp"
#include "scenarios/memcached_service.hpp"
#include "scenarios/model_registry.hpp"
#include "scenarios/queue_server.hpp"
#include "scenarios/scylla_service.hpp"

namespace skysim::scenarios {

ServiceKind go_service_kind();     // scenarios/kind_go_service.cpp

void register_builtin_models(Registry& r) {
  r.add(queue_server_kind());
  r.add(go_service_kind());
  r.add(scylla_kind());
  r.add(memcached_kind());
  r.add(fdb_kind());
  r.add(follow_graph_kind());
  r.add(fanout_fleet_kind());
  r.add(hyper_detector_kind());
  // The lead adds the models of models/ here (net, memcached, goruntime, fdb, scylla, ...).
}

const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    register_builtin_models(r);
    return r;
  }();
  return registry;
}

}  // namespace skysim::scenarios
