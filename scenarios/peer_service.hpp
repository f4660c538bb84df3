#pragma once
// A service named by another's parameter (ServiceKind::peer_params): the loader checked that it
// exists in the same datacenter, is of the kind the parameter wants and is declared above the
// naming service, so it is built by the time the naming one is.
#include <stdexcept>
#include <string>

#include "scenarios/model_registry.hpp"

namespace skysim::scenarios {

// The first host of service `name` in the naming service's datacenter (nullptr if none).
inline Instance* peer_host(World& w, const HostContext& ctx, const std::string& name) {
  return w.find(ctx.datacenter + "/" + name + "/0");
}

// What `of` finds on the host the parameter `param` names (follow_graph_of, scylla_cluster_of,
// ...); one clear error if it finds nothing.
template <class T, class Of>
T* peer(World& w, const HostContext& ctx, const char* param, Of of) {
  const std::string& name = ctx.params.string(param);
  T* found = of(peer_host(w, ctx, name));
  if (found == nullptr) {
    throw std::invalid_argument(std::string(param) + ": no such service '" + name +
                                "' built before " + ctx.service);
  }
  return found;
}

}  // namespace skysim::scenarios
