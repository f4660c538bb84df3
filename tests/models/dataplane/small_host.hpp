#pragma once
// The small data-plane host the model tests share: 4 cores, a 100-connection idle pool, a
// 64 MiB baseline heap — big enough for the mechanisms, small enough to run in milliseconds.
#include "models/dataplane/config.hpp"

namespace skysim::dataplane::testing {

inline DataPlaneConfig small_host() {
  DataPlaneConfig c;
  c.name = "test/dataplane/0";
  c.go.cores = 4;
  c.cache_client.max_idle_conns = 100;
  c.cache_server.max_connections = 100000;
  c.baseline_live_heap_bytes = 64LL << 20;
  return c;
}

}  // namespace skysim::dataplane::testing
