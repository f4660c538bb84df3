#pragma once
// A FoundationDB client transaction (domain.md §6.1-6.4), the transaction of the kv::Backend
// (kv_backend.hpp) the components/uidalloc allocators run on unchanged:
//
//   fdb::Transaction tr(db, rng);
//   for (;;) {
//     std::optional<fdb::Error> err;
//     try {
//       auto v = co_await tr.get("last_uid");
//       tr.set("last_uid", next(v));
//       co_await tr.commit();
//       break;
//     } catch (const fdb::Error& e) { err = e; }
//     co_await tr.on_error(*err);   // backs off and resets, or rethrows a non-retryable error
//   }
//
// The read version is fetched on the first read (GRV); reads see the database at that version
// merged with this transaction's own buffered writes; commit ships mutations and conflict ranges
// through the Database's commit pipeline.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "components/uidalloc/kv_transaction.hpp"
#include "models/fdb/conflict_history.hpp"
#include "models/fdb/database.hpp"
#include "models/fdb/error.hpp"
#include "models/fdb/mutation.hpp"
#include "sim/process.hpp"
#include "sim/rng.hpp"

namespace fdb {

class Transaction final {
 public:
  // `rng` is the client's stream (latency draws, backoff jitter).
  Transaction(Database& db, sim::Rng& rng);

  sim::Task<kv::Value> get(std::string key);
  sim::Task<kv::Value> get_snapshot(std::string key);
  sim::Task<std::vector<kv::KeyValue>> get_range(std::string begin, std::string end,
                                                 kv::RangeOptions options);
  void set(const std::string& key, const std::string& value);
  void clear(const std::string& key);
  void clear_range(const std::string& begin, const std::string& end);
  void atomic_add(const std::string& key, std::int64_t delta);
  void add_read_conflict_key(const std::string& key);
  void add_write_conflict_key(const std::string& key);
  void no_write_conflict_for_next_write() { skip_next_write_conflict_ = true; }

  // The 10-byte stamp replaces key[offset, offset + 10) / value[offset, offset + 10) at commit.
  void set_versionstamped_key(const std::string& key, std::size_t offset, const std::string& value);
  void set_versionstamped_value(const std::string& key, const std::string& value,
                                std::size_t offset);

  sim::Task<Version> get_read_version();
  // Throws fdb::Error: not_committed, transaction_too_old, commit_unknown_result, ...
  sim::Task<void> commit();
  // FoundationDB's onError: sleeps the backoff and resets for a retryable error, else rethrows.
  sim::Task<void> on_error(const Error& e);
  // Forgets reads, writes and the read version; keeps the backoff (domain.md §6.2).
  void reset();

  Version committed_version() const { return committed_version_; }
  // After a successful commit with writes: the transaction's 10-byte versionstamp.
  std::string versionstamp() const;
  sim::Duration backoff() const { return backoff_; }

 private:
  struct Pending {
    MutationType type;  // set, clear, add or set_versionstamped_value
    std::string value;  // set value, accumulated add operand, versionstamped value
    std::size_t offset = 0;
    bool conflicts = false;  // some write of this key took a write conflict
  };
  sim::Task<kv::Value> read(std::string key, bool snapshot);
  sim::Task<void> ensure_read_version();
  // Known from this transaction's own writes alone (no storage read needed)?
  bool local_value(const std::string& key, kv::Value& out) const;
  // Applies this transaction's writes to the value storage returned for `key`.
  kv::Value overlay(const std::string& key, kv::Value stored) const;
  bool covered_by_clear(const std::string& key) const;
  void check_key(const std::string& key) const;
  void check_readable_version() const;
  // Buffers `w` as the key's pending write, keeping any write conflict an earlier write took.
  void buffer(const std::string& key, Pending w, std::size_t bytes);
  void build_mutations();

  Database* db_;
  sim::Rng* rng_;
  std::optional<Version> read_version_;
  std::map<std::string, Pending, std::less<>> writes_;
  std::vector<std::pair<std::string, std::string>> cleared_;  // in call order
  std::vector<Mutation> stamped_keys_;
  std::vector<ConflictRange> read_conflicts_;
  std::vector<ConflictRange> write_conflicts_;
  std::vector<Mutation> mutations_;
  std::size_t bytes_ = 0;
  bool skip_next_write_conflict_ = false;
  bool committing_ = false;
  Version committed_version_ = -1;
  std::uint16_t batch_index_ = 0;
  sim::Duration backoff_;
};

}  // namespace fdb
