#pragma once
// The `fdb` kind's cluster, for the clients that speak FoundationDB's protocol (a go-service's
// client with driver: fdb, whose uid_alloc and fdb_txn steps run transactions on it): they hold
// the Database, not Requests, as the fdb client library keeps its own connections to the
// cluster's processes (the Database's latencies stand for those round trips).
#include <cstdint>
#include <string>
#include <vector>

#include "models/fdb/database.hpp"
#include "models/fdb/interning_workload.hpp"
#include "scenarios/model_registry.hpp"

namespace skysim::scenarios {

// What a client reaches: the database, and the books its interning steps keep, so the
// uniqueness and durability of every acknowledged UID are checked against the cluster's store
// whichever service interned it.
class FdbCluster {
 public:
  virtual fdb::Database& database() = 0;
  // Attempts, conflicts and retries of every interning on this cluster (uid.* metrics).
  virtual fdb::InterningResults& interning_tally() = 0;
  // An interning acknowledged to its caller: `str` now has `uid`, durably.
  virtual void acknowledge(const std::string& str, std::uint64_t uid) = 0;
  // False while the cluster is down (a crash fault): a client's transaction fails at once.
  virtual bool available() const = 0;

 protected:
  ~FdbCluster() = default;
};

// commit_capacity, commit_batch_interval and the settable commit_unknown_probability: the
// cluster's parameters.
std::vector<sim::ParamSpec> database_params();
// Throws std::invalid_argument naming the field.
fdb::DatabaseConfig database_config(const sim::ParamValues& p);

ServiceKind fdb_kind();
// The cluster of an `fdb` host; nullptr for a host of another kind (or none).
FdbCluster* fdb_cluster_of(Instance* host);

}  // namespace skysim::scenarios
