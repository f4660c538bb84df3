#pragma once
// The `memcached` kind's server, for the clients that speak its protocol (a go-service's
// gomemcache client): they hold memcached::Server pointers, not Requests.
#include "models/memcached/server.hpp"
#include "scenarios/model_registry.hpp"

namespace skysim::scenarios {

ServiceKind memcached_kind();
// The server of a `memcached` host; nullptr for a host of another kind.
memcached::Server* memcached_server_of(Instance* host);

}  // namespace skysim::scenarios
