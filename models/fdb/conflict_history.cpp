#include "models/fdb/conflict_history.hpp"

namespace fdb {

bool ConflictHistory::conflicts(const std::vector<ConflictRange>& reads, Version rv) const {
  for (const auto& r : reads) {
    if (store_->written_after(r.begin, r.end, rv)) {
      return true;
    }
    for (const auto& w : ranges_) {
      bool overlaps = r.point() ? (w.begin <= r.begin && r.begin < w.end)
                                : (w.begin < r.end && r.begin < w.end);
      if (overlaps && w.version > rv) {
        return true;
      }
    }
  }
  return false;
}

void ConflictHistory::record(const ConflictRange& write, Version v) {
  if (write.point()) {
    store_->note_write_conflict(write.begin, v);
  } else {
    ranges_.push_back(RangeWrite{write.begin, write.end, v});
  }
}

void ConflictHistory::prune(Version horizon) {
  std::erase_if(ranges_, [&](const RangeWrite& r) { return r.version < horizon; });
}

}  // namespace fdb
