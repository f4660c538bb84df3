#pragma once
// The cluster a `scylla` service runs, for a service of the same scenario that drives a Scylla
// cluster itself instead of building its own: the fanout kind's `cluster:` (issue 26,
// docs/whole-system.md), so the fan-out's timeline writes and a data plane's reads meet on the
// same shards.
#include "models/scylla/cluster.hpp"
#include "scenarios/model_registry.hpp"

namespace skysim::scenarios {

// nullptr when `host` is not a scylla service's host.
scylla::ScyllaCluster* scylla_cluster_of(Instance& host);

}  // namespace skysim::scenarios
