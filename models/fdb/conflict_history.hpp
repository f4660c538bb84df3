#pragma once
// The resolvers' memory of recent writes (domain.md §6.1 step 5). A transaction with read
// version RV fails if any of its read-conflict ranges was written at a version > RV. Point
// writes are remembered on the store's entries (VersionedStore::note_write_conflict); range
// writes (clear_range) here, forgotten once older than the MVCC window — a transaction that old
// is rejected as too old anyway.
#include <string>
#include <vector>

#include "models/fdb/config.hpp"
#include "models/fdb/versioned_store.hpp"

namespace fdb {

// [begin, end); an empty `end` means the single key `begin`.
struct ConflictRange {
  std::string begin;
  std::string end;
  bool point() const { return end.empty(); }
};

class ConflictHistory {
 public:
  explicit ConflictHistory(VersionedStore& store) : store_(&store) {}
  bool conflicts(const std::vector<ConflictRange>& reads, Version rv) const;
  void record(const ConflictRange& write, Version v);
  // Forgets range writes at versions < horizon.
  void prune(Version horizon);

 private:
  struct RangeWrite {
    std::string begin;
    std::string end;
    Version version;
  };

  VersionedStore* store_;
  std::vector<RangeWrite> ranges_;
};

}  // namespace fdb
