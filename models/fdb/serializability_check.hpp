#pragma once
// FoundationDB's promise, checked from outside the resolver: a transaction that commits at CV
// read nothing that another transaction's write-conflict set wrote in (RV, CV] (domain.md §6.1
// step 5; transactions earlier in the same batch commit at CV too, so their writes count).
// It keeps its own memory of committed writes — a key's last conflicting write version and
// the written ranges — so a resolver that skips or botches its check (ConflictHistory) is
// caught at the commit that should have failed. Writes outside every write-conflict set
// (no_write_conflict_for_next_write) are invisible to FoundationDB's check and so to this one.
#include <map>
#include <string>
#include <vector>

#include "models/fdb/config.hpp"
#include "models/fdb/conflict_history.hpp"
#include "models/fdb/mutation.hpp"

namespace fdb {

class SerializabilityCheck {
 public:
  // Before the transaction's own writes are noted: "" or what it read that was overwritten.
  // The first error is kept (error()).
  void on_commit(const std::vector<ConflictRange>& reads, Version rv, Version cv);
  // A committed transaction's writes: its explicit write-conflict ranges, and the keys of its
  // mutations that carry their conflict with them (Mutation::write_conflict). A versionstamped
  // key is known only once stamped: not tracked (no workload here reads one back).
  void note_writes(const std::vector<ConflictRange>& writes, const std::vector<Mutation>& mutations,
                   Version cv);
  // Forgets writes older than `horizon`: a transaction reading before it is too old anyway.
  void prune(Version horizon);
  const std::string& error() const { return error_; }

 private:
  struct RangeWrite {
    std::string begin, end;
    Version version;
  };
  // The newest write in (rv, +inf) overlapping `r`, or -1.
  Version newest_after(const ConflictRange& r, Version rv) const;

  std::map<std::string, Version> points_;  // key -> last committed write version
  std::vector<RangeWrite> ranges_;
  std::string error_;
};

}  // namespace fdb
