#include "models/fdb/serializability_check.hpp"

#include <algorithm>

namespace fdb {

Version SerializabilityCheck::newest_after(const ConflictRange& r, Version rv) const {
  Version newest = -1;
  if (r.point()) {
    auto it = points_.find(r.begin);
    if (it != points_.end() && it->second > rv) newest = it->second;
  } else {
    const auto& index = ordered();
    for (auto it = index.lower_bound(r.begin); it != index.end() && it->first < r.end; ++it) {
      if (*it->second > rv) newest = std::max(newest, *it->second);
    }
  }
  for (const auto& w : ranges_) {
    bool overlaps = r.point() ? (w.begin <= r.begin && r.begin < w.end)
                              : (w.begin < r.end && r.begin < w.end);
    if (overlaps && w.version > rv) newest = std::max(newest, w.version);
  }
  return newest;
}

const std::map<std::string_view, const Version*>& SerializabilityCheck::ordered() const {
  if (!ordered_live_) {
    for (const auto& [key, version] : points_) ordered_.emplace(key, &version);
    ordered_live_ = true;
  }
  return ordered_;
}

void SerializabilityCheck::note_point(const std::string& key, Version cv) {
  auto [it, fresh] = points_.try_emplace(key, cv);
  if (!fresh) {
    it->second = cv;
  } else if (ordered_live_) {
    ordered_.emplace(it->first, &it->second);
  }
}

void SerializabilityCheck::on_commit(const std::vector<ConflictRange>& reads, Version rv,
                                     Version cv) {
  if (!error_.empty()) return;
  for (const auto& r : reads) {
    Version v = newest_after(r, rv);
    if (v > rv && v <= cv) {
      error_ = "a transaction committed at version " + std::to_string(cv) + " read '" + r.begin +
               (r.point() ? "" : "'..'" + r.end) + "' at version " + std::to_string(rv) +
               ", overwritten at version " + std::to_string(v);
      return;
    }
  }
}

void SerializabilityCheck::note_writes(const std::vector<ConflictRange>& writes,
                                       const std::vector<Mutation>& mutations, Version cv) {
  for (const auto& m : mutations) {
    if (m.write_conflict && m.type != MutationType::clear_range &&
        m.type != MutationType::set_versionstamped_key) {
      note_point(m.key, cv);
    }
  }
  for (const auto& w : writes) {
    if (w.point()) {
      note_point(w.begin, cv);
    } else {
      ranges_.push_back(RangeWrite{w.begin, w.end, cv});
    }
  }
}

void SerializabilityCheck::prune(Version horizon) {
  std::erase_if(ranges_, [&](const RangeWrite& w) { return w.version < horizon; });
  if (ordered_live_) {
    std::erase_if(ordered_, [&](const auto& kv) { return *kv.second < horizon; });
  }
  std::erase_if(points_, [&](const auto& kv) { return kv.second < horizon; });
}

}  // namespace fdb
