#pragma once
// FoundationDB's promise, checked from outside the resolver: a transaction that commits at CV
// read nothing that another transaction's write-conflict set wrote in (RV, CV] (domain.md §6.1
// step 5; transactions earlier in the same batch commit at CV too, so their writes count).
// It keeps its own memory of committed writes — a key's last conflicting write version and
// the written ranges — so a resolver that skips or botches its check (ConflictHistory) is
// caught at the commit that should have failed. Writes outside every write-conflict set
// (no_write_conflict_for_next_write) are invisible to FoundationDB's check and so to this one.
//
// Point reads are one hash probe (h-fuzzintern: the ordered std::map's string compares were
// 15 % of a fuzz-interning run). Key order is needed only by range reads: the ordered index
// over the hash map's keys is built the first time one arrives and kept up to date from then
// on, so a workload without range reads never pays for it. Verdicts do not depend on which
// structure answers: the newest write overlapping a read is a maximum, whatever the order.
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/fdb/config.hpp"
#include "models/fdb/conflict_history.hpp"
#include "models/fdb/key_hash.hpp"
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
  void note_point(const std::string& key, Version cv);
  const std::map<std::string_view, const Version*>& ordered() const;

  std::unordered_map<std::string, Version, KeyHash> points_;  // key -> last committed write version
  // Key order over points_ (views into its keys), live once a range read needed it.
  mutable std::map<std::string_view, const Version*> ordered_;
  mutable bool ordered_live_ = false;
  std::vector<RangeWrite> ranges_;
  std::string error_;
};

}  // namespace fdb
