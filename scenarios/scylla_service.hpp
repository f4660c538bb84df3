#pragma once
// The cluster a `scylla` service runs, for a service of the same scenario that drives a Scylla
// cluster itself: a fanout-fleet's `cluster:` (issue 26, docs/whole-system.md), so the fleet's
// timeline writes and a data plane's reads meet on the same shards.
#include "models/scylla/cluster.hpp"
#include "scenarios/model_registry.hpp"

namespace fanout {
class HotKeyNodes;
}

namespace skysim::scenarios {

ServiceKind scylla_kind();
// The cluster of a `scylla` host; nullptr for a host of another kind (or none).
scylla::ScyllaCluster* scylla_cluster_of(Instance* host);
// The per-node hot-key detectors of a `scylla` host running hot_keys; nullptr otherwise.
fanout::HotKeyNodes* scylla_hot_keys_of(Instance* host);

}  // namespace skysim::scenarios
