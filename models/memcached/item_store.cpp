#include "models/memcached/item_store.hpp"

#include <xxhash.h>

#include <stdexcept>

namespace skysim::memcached {

std::size_t LruItemStore::KeyHash::operator()(const std::string& k) const {
  return static_cast<std::size_t>(XXH3_64bits(k.data(), k.size()));
}

LruItemStore::LruItemStore(std::size_t capacity_items) : capacity_(capacity_items) {
  if (capacity_items == 0) {
    throw std::invalid_argument("memcached: capacity_items must be at least 1");
  }
}

std::optional<McItem> LruItemStore::get(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) {
    return std::nullopt;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->item;
}

void LruItemStore::set(const std::string& key, McItem item) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    it->second->item = item;
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  if (index_.size() >= capacity_) {
    index_.erase(lru_.back().key);
    lru_.pop_back();
    ++evictions_;
  }
  lru_.push_front(Entry{key, item});
  index_.emplace(key, lru_.begin());
}

bool LruItemStore::erase(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) {
    return false;
  }
  lru_.erase(it->second);
  index_.erase(it);
  return true;
}

}  // namespace skysim::memcached
