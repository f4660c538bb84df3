#include "models/fdb/versioned_store.hpp"

#include <algorithm>

namespace fdb {

const std::string* VersionedStore::Entry::at(Version rv) const {
  if (latest.version <= rv) {
    return latest.present ? &latest.value : nullptr;
  }
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (it->version <= rv) {
      return it->present ? &it->value : nullptr;
    }
  }
  return nullptr;  // the key did not exist yet at rv
}

const VersionedStore::Entry* VersionedStore::find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

VersionedStore::Entry* VersionedStore::find(const std::string& key) {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

VersionedStore::Entry& VersionedStore::insert(const std::string& key, Entry e) {
  auto [it, fresh] = entries_.emplace(key, std::move(e));
  unordered_new_.emplace_back(std::string_view(it->first), &it->second);
  return it->second;
}

const VersionedStore::OrderedIndex& VersionedStore::ordered() const {
  if (!unordered_new_.empty()) {
    // Sorted first, so each insert lands next to the previous one (hinted, cache-friendly).
    std::sort(unordered_new_.begin(), unordered_new_.end());
    auto hint = ordered_.end();
    for (const auto& kv : unordered_new_) {
      hint = ordered_.insert(hint, kv);
      ++hint;
    }
    unordered_new_.clear();
  }
  return ordered_;
}

std::vector<std::pair<std::string_view, const VersionedStore::Entry*>>
VersionedStore::sorted_range(std::string_view begin, std::string_view end) const {
  std::vector<std::pair<std::string_view, const Entry*>> out;
  if (unordered_new_.empty()) {  // the index is up to date: walk it
    for (auto it = ordered_.lower_bound(begin); it != ordered_.end() && it->first < end; ++it) {
      out.emplace_back(it->first, it->second);
    }
    return out;
  }
  // Hash order only picks the members; the sort (keys are unique) fixes the order.
  for (const auto& [key, e] : entries_) {
    if (begin <= key && key < end) out.emplace_back(key, &e);
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

void VersionedStore::write(const std::string& key, std::optional<std::string> value, Version v,
                           Version horizon, bool write_conflict) {
  Entry* found = find(key);
  if (!found) {
    if (value) {
      insert(key, Entry{Revision{v, true, std::move(*value)}, {}, write_conflict ? v : -1});
    } else if (write_conflict) {
      note_write_conflict(key, v);  // clearing an absent key: only the conflict is remembered
    }
    return;
  }
  Entry& e = *found;
  if (write_conflict) {
    e.last_write_conflict = std::max(e.last_write_conflict, v);
  }
  e.history.push_back(std::move(e.latest));
  e.latest = Revision{v, value.has_value(), value ? std::move(*value) : std::string()};
  // A version is still needed while the next newer one is above the horizon.
  std::size_t drop = 0;
  while (drop < e.history.size()) {
    Version newer = drop + 1 < e.history.size() ? e.history[drop + 1].version : e.latest.version;
    if (newer > horizon) {
      break;
    }
    ++drop;
  }
  if (drop > 0) {
    e.history.erase(e.history.begin(), e.history.begin() + static_cast<std::ptrdiff_t>(drop));
  }
}

void VersionedStore::clear_range(const std::string& begin, const std::string& end, Version v,
                                 Version horizon) {
  std::vector<std::string> present;
  const OrderedIndex& index = ordered();
  for (auto it = index.lower_bound(begin); it != index.end() && it->first < end; ++it) {
    if (it->second->latest.present) {
      present.emplace_back(it->first);
    }
  }
  for (const auto& key : present) {
    write(key, std::nullopt, v, horizon);
  }
}

std::optional<std::string> VersionedStore::read(const std::string& key, Version rv) const {
  const Entry* e = find(key);
  if (!e) {
    return std::nullopt;
  }
  const std::string* v = e->at(rv);
  return v ? std::optional<std::string>(*v) : std::nullopt;
}

std::optional<std::string> VersionedStore::latest(const std::string& key) const {
  const Entry* e = find(key);
  if (!e || !e->latest.present) {
    return std::nullopt;
  }
  return e->latest.value;
}

void VersionedStore::note_write_conflict(const std::string& key, Version v) {
  Entry* e = find(key);
  if (!e) {
    // A conflict-only key (or a clear of an absent key): remember it as absent since version 0.
    e = &insert(key, Entry{Revision{0, false, {}}, {}});
  }
  e->last_write_conflict = std::max(e->last_write_conflict, v);
}

bool VersionedStore::written_after(const std::string& begin, const std::string& end,
                                   Version rv) const {
  if (end.empty()) {
    const Entry* e = find(begin);
    return e && e->last_write_conflict > rv;
  }
  const OrderedIndex& index = ordered();
  for (auto it = index.lower_bound(begin); it != index.end() && it->first < end; ++it) {
    if (it->second->last_write_conflict > rv) {
      return true;
    }
  }
  return false;
}

std::map<std::string, std::string> VersionedStore::latest_snapshot() const {
  std::map<std::string, std::string> out;
  for (const auto& [key, e] : ordered()) {
    if (e->latest.present) {
      out.emplace_hint(out.end(), std::string(key), e->latest.value);
    }
  }
  return out;
}

}  // namespace fdb
