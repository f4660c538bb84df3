#pragma once
// The newest committed state of a VersionedStore as the interning checker reads it
// (uidalloc::StoreView), without copying the store into a std::map first: lookups are the
// store's own hash probes, range scans sort just the keys they read.
#include <functional>
#include <string>
#include <string_view>

#include "components/uidalloc/interning_checker.hpp"
#include "models/fdb/versioned_store.hpp"

namespace fdb {

class LatestStoreView final : public uidalloc::StoreView {
 public:
  explicit LatestStoreView(const VersionedStore& store) : store_(&store) {}
  const std::string* find(const std::string& key) const override {
    return store_->latest_value(key);
  }
  void scan(const std::string& begin, const std::string& end,
            const std::function<void(std::string_view, const std::string&)>& visit)
      const override {
    for (const auto& [key, e] : store_->sorted_range(begin, end)) {
      if (e->latest.present) visit(key, e->latest.value);
    }
  }

 private:
  const VersionedStore* store_;
};

}  // namespace fdb
