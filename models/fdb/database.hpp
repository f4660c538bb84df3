#pragma once
// One FoundationDB cluster as the client sees it (domain.md §6.1): a version clock (1e6 versions
// per simulated second), storage (VersionedStore), and the commit pipeline — a commit proxy that
// batches transactions, a resolver that checks each read-conflict range against writes committed
// in (RV, CV], and the log that makes accepted batches durable.
//
// Lifetime: the commit pipeline schedules its own handlers on the Simulation; destroy the
// Database only after the Simulation has run dry (no transaction in flight) or was destroyed.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/fdb/config.hpp"
#include "models/fdb/conflict_history.hpp"
#include "models/fdb/mutation.hpp"
#include "models/fdb/serializability_check.hpp"
#include "models/fdb/versioned_store.hpp"
#include "sim/histogram.hpp"
#include "sim/intrusive_list.hpp"
#include "sim/simulation.hpp"

namespace fdb {

enum class CommitOutcome : std::uint8_t {
  pending,
  committed,
  conflict,  // not_committed (1020)
  too_old,   // transaction_too_old (1007)
  unknown,   // commit_unknown_result (1021)
};

// One transaction in the commit pipeline; lives in the committing coroutine's frame and unlinks
// itself if that frame dies first.
struct CommitRequest : sim::ListNode {
  Version read_version = 0;
  const std::vector<ConflictRange>* reads = nullptr;
  const std::vector<ConflictRange>* writes = nullptr;
  const std::vector<Mutation>* mutations = nullptr;
  sim::WakeToken waiter;
  sim::Duration reply_delay = 0;
  bool lost_before_resolution = false;  // injected fault: never applied
  bool reply_lost = false;              // injected fault: maybe applied, client learns nothing
  CommitOutcome outcome = CommitOutcome::pending;
  Version commit_version = -1;
  std::uint16_t batch_index = 0;
};

struct DatabaseStats {
  std::uint64_t committed = 0;
  std::uint64_t conflicts = 0;
  std::uint64_t too_old = 0;
  std::uint64_t unknown_results = 0;
  std::uint64_t unknown_applied = 0;  // of those, how many did commit
  std::uint64_t batches = 0;
  sim::Histogram batch_size;
  // CV - RV of every resolved transaction: the window in which others' writes conflict with it.
  sim::Histogram conflict_window_versions;
};

class Database {
 public:
  Database(sim::Simulation& sim, DatabaseConfig config = {});
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  sim::Simulation& simulation() { return *sim_; }
  const DatabaseConfig& config() const { return config_; }
  // Fault injection at run time (`skysim fuzz` raises it for a while, then restores it).
  void set_commit_unknown_probability(double p) { config_.commit_unknown_probability = p; }

  // The newest version a reader may be given: the clock, or the last commit if it ran ahead.
  Version current_version() const;
  Version oldest_readable_version() const {
    return current_version() - config_.mvcc_window_versions;
  }
  // GRV: hands out current_version() and remembers it, so later commits get a larger version.
  Version grant_read_version();

  const VersionedStore& store() const { return store_; }
  std::map<std::string, std::string> snapshot() const { return store_.latest_snapshot(); }
  const DatabaseStats& stats() const { return stats_; }
  // "" or the first committed transaction whose reads were overwritten in (RV, CV]
  // (SerializabilityCheck, kept at every commit; the invariant fdb.serializable).
  const std::string& serializability_error() const { return serializability_.error(); }

  // Enters `r` into the open commit batch; the pipeline wakes r.waiter when it is decided.
  void submit(CommitRequest& r);

 private:
  struct Batch {
    sim::IntrusiveList<CommitRequest> requests;
    sim::Time resolve_at = 0;
  };
  struct BatchCloser final : sim::Handler {
    Database* db = nullptr;
    void on_event(sim::Simulation&) override { db->close_batch(); }
  };
  struct BatchResolver final : sim::Handler {
    Database* db = nullptr;
    void on_event(sim::Simulation&) override { db->resolve_front_batch(); }
  };

  void close_batch();
  void resolve_front_batch();
  Version next_commit_version();
  void resolve(CommitRequest& r, Version cv, std::uint16_t index);
  bool check_conflicts(std::uint16_t index) const;  // false only in the planted build
  void apply(const std::vector<Mutation>& mutations, Version cv, std::uint16_t index);
  Version clock_version() const;

  sim::Simulation* sim_;
  DatabaseConfig config_;
  sim::Rng* fault_rng_;
  VersionedStore store_;
  ConflictHistory conflicts_;
  Version last_commit_version_ = 0;
  Version max_read_version_granted_ = 0;
  Version last_prune_ = 0;
  std::unique_ptr<Batch> open_batch_;
  std::deque<std::unique_ptr<Batch>> resolving_;
  sim::Time resolver_free_at_ = 0;
  BatchCloser closer_;
  BatchResolver resolver_;
  DatabaseStats stats_;
  SerializabilityCheck serializability_;
};

}  // namespace fdb
