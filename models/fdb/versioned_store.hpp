#pragma once
// The storage servers' multi-version key-value map (domain.md §6.1): each key keeps its newest
// value plus the older versions still readable inside the MVCC window (~5 s of versions).
//
// Entries live in a hash map (stable addresses; point reads and writes are one probe). Key
// order — needed only by range reads and by whole-store iteration — is kept in an ordered index
// that is brought up to date lazily, the first time something needs order after new keys
// arrived: a workload without range reads never pays for ordered inserts into a million-key
// tree, and one with range reads pays the same as an eager index. Iteration is always in key
// order, so results never depend on hash order.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/fdb/config.hpp"
#include "models/fdb/key_hash.hpp"

namespace fdb {

class VersionedStore {
 public:
  struct Revision {
    Version version = 0;
    bool present = false;  // false = cleared at this version
    std::string value;
  };
  struct Entry {
    Revision latest;
    std::vector<Revision> history;  // older versions, oldest first
    // The resolver's memory for this key: the last commit version whose write-conflict set
    // held it (kept here so a conflict check costs no second lookup structure).
    Version last_write_conflict = -1;
    // The value visible at read version rv, or nullptr if the key is absent there.
    const std::string* at(Version rv) const;
  };
  // Key order over the entries; the views point into the entries' own keys.
  using OrderedIndex = std::map<std::string_view, Entry*>;

  // `horizon` = oldest version any reader may still use; older history is dropped. With
  // write_conflict, the key also enters the resolver's memory at v (one probe for both).
  void write(const std::string& key, std::optional<std::string> value, Version v,
             Version horizon, bool write_conflict = false);
  void clear_range(const std::string& begin, const std::string& end, Version v, Version horizon);

  std::optional<std::string> read(const std::string& key, Version rv) const;
  std::optional<std::string> latest(const std::string& key) const;
  // The same without a copy: nullptr when absent or cleared.
  const std::string* latest_value(const std::string& key) const {
    const Entry* e = find(key);
    return e && e->latest.present ? &e->latest.value : nullptr;
  }
  void note_write_conflict(const std::string& key, Version v);
  // Was any key in [begin, end) (end empty: just `begin`) in a write-conflict set after rv?
  bool written_after(const std::string& begin, const std::string& end, Version rv) const;

  // Every key (including cleared ones) in order.
  const OrderedIndex& ordered() const;
  // The keys in [begin, end) (including cleared ones) in order, without building the ordered
  // index: a one-off scan (the checker's, at the end of a run) sorts only what it reads.
  std::vector<std::pair<std::string_view, const Entry*>> sorted_range(std::string_view begin,
                                                                      std::string_view end) const;
  std::size_t size() const { return entries_.size(); }
  // The newest value of every present key: what the invariant checker inspects.
  std::map<std::string, std::string> latest_snapshot() const;

 private:
  const Entry* find(const std::string& key) const;
  Entry* find(const std::string& key);
  Entry& insert(const std::string& key, Entry e);

  std::unordered_map<std::string, Entry, KeyHash> entries_;
  mutable OrderedIndex ordered_;
  mutable std::vector<std::pair<std::string_view, Entry*>> unordered_new_;  // not yet in ordered_
};

}  // namespace fdb
