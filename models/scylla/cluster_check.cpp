// The cluster's self-checks (a scylla service's scylla.consistent calls check_invariants() at
// every tick):
// every shard's reactor conserves work (reactor.hpp), and every write reaches at most RF replicas — its route
// names RF distinct shards (checked once per partition, when the route is computed), and the
// replication step never admitted an op on more than RF of them.
#include <string>

#include "models/scylla/cluster.hpp"

namespace scylla {

void ScyllaCluster::note_route(PartitionKey key, const ShardId* route) {
  for (std::uint32_t i = 0; i < cfg_.rf && route_error_.empty(); ++i) {
    for (std::uint32_t j = 0; j < i; ++j) {
      if (route[i] == route[j]) {
        route_error_ = "partition " + std::to_string(key) + " routed to shard " +
                       std::to_string(route[i]) + " twice (a write would reach > RF copies)";
        break;
      }
    }
  }
}

std::string ScyllaCluster::check_invariants() const {
  if (!route_error_.empty()) return route_error_;
  if (replica_ops_ > replicated_ops_ * cfg_.rf) {
    return std::to_string(replica_ops_) + " replica admissions for " +
           std::to_string(replicated_ops_) + " ops > RF " + std::to_string(cfg_.rf) + " each";
  }
  for (std::size_t s = 0; s < shards_.size(); ++s) {
    if (const char* e = shard_conservation_error(s); *e != '\0') {
      return "shard " + std::to_string(s) + ": " + e;
    }
  }
  return "";
}

}  // namespace scylla
