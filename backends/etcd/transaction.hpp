#pragma once
// A serializable optimistic transaction over etcd, in the shape of a FoundationDB transaction so
// the components/uidalloc allocators run on it unchanged (kv::Backend with kv::SyncTask):
//  - the first read fixes the read revision R; every read is served at R (a snapshot);
//  - a conflict-taking read records the key's mod_revision at R (0: absent); a conflict-taking
//    range read also records its range;
//  - writes are buffered, and this transaction's reads see them;
//  - commit is one etcd txn: for every recorded key `mod_revision == seen` (absent keys:
//    `create_revision == 0`), for every recorded range `mod_revision < R + 1` over the range
//    (a key created in it fails the compare), then the deletes and puts. A failed compare is
//    `NotCommitted`; on_error() sleeps FoundationDB's backoff (10 ms x U(0,1), doubling to 1 s)
//    and resets.
// What etcd cannot say, and what this does instead (docs/components.md):
//  - every etcd write bumps the key's mod_revision, so no_write_conflict_for_next_write() cannot
//    spare readers: it is accepted and has no effect (more conflicts, never fewer);
//  - etcd has no atomic add: atomic_add reads the value at R *with* a conflict and puts the sum,
//    so concurrent adds to one key conflict instead of commuting. (Without the conflict adds
//    are lost, and the HCA, whose counter then lags its used candidates, spins forever in a full
//    window: measured.) The HCA's window counter becomes a contended key on etcd;
//  - add_write_conflict_key needs a buffered write of the key (the HCA always has one).
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/etcd/client.hpp"
#include "components/uidalloc/kv_transaction.hpp"
#include "components/uidalloc/sync_task.hpp"

namespace etcd {

// The commit's compares failed: something this transaction read was written since R.
class NotCommitted : public std::runtime_error {
 public:
  NotCommitted() : std::runtime_error("etcd: not committed (a read key changed)") {}
};

struct Backoff {
  std::chrono::microseconds initial{10'000};
  std::chrono::microseconds max{1'000'000};
  double growth = 2.0;
};

class Transaction {
 public:
  Transaction(Client& client, std::mt19937_64& rng, Backoff backoff = {});

  kv::SyncTask<kv::Value> get(std::string key);
  kv::SyncTask<kv::Value> get_snapshot(std::string key);
  kv::SyncTask<std::vector<kv::KeyValue>> get_range(std::string begin, std::string end,
                                                    kv::RangeOptions options);
  void set(const std::string& key, const std::string& value);
  void clear(const std::string& key);
  void clear_range(const std::string& begin, const std::string& end);
  void atomic_add(const std::string& key, std::int64_t delta);
  void add_read_conflict_key(const std::string& key);
  void add_write_conflict_key(const std::string& key);
  void no_write_conflict_for_next_write() {}

  // Throws NotCommitted, or Unreachable.
  void commit();
  // Sleeps the backoff and resets; the backoff grows with each call until a commit succeeds.
  void on_error(const NotCommitted&);
  void reset();

  std::int64_t read_revision() const { return read_revision_; }

 private:
  kv::Value read(const std::string& key, bool conflict);
  bool local(const std::string& key, kv::Value& out) const;
  bool cleared(const std::string& key) const;

  Client* client_;
  std::mt19937_64* rng_;
  Backoff config_;
  std::chrono::microseconds backoff_;
  std::int64_t read_revision_ = 0;                 // 0: not read yet
  std::map<std::string, std::int64_t> read_keys_;  // key -> mod_revision at R (0 = absent)
  std::vector<std::pair<std::string, std::string>> read_ranges_;
  std::map<std::string, std::string> puts_;
  std::map<std::string, std::string> clears_;  // disjoint [begin, end), keyed by begin
};

using KvBackend = kv::Blocking<Transaction>;
static_assert(kv::Backend<KvBackend>);

}  // namespace etcd
