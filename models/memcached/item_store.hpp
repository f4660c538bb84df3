#pragma once
// memcached's item memory: a fixed number of items, least recently used evicted first.
// (Real memcached bounds bytes per slab class and keeps an LRU per class; one item-count LRU is
// the assumption here — see docs/models/memcached.md.)
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "models/memcached/protocol.hpp"

namespace skysim::memcached {

class LruItemStore {
 public:
  explicit LruItemStore(std::size_t capacity_items);

  std::optional<McItem> get(const std::string& key);  // a hit becomes most recently used
  void set(const std::string& key, McItem item);
  bool erase(const std::string& key);

  std::size_t size() const { return index_.size(); }
  std::size_t capacity() const { return capacity_; }
  std::uint64_t evictions() const { return evictions_; }

 private:
  // xxHash, not std::hash: lookups only (never iterated), but the project bans std::hash.
  struct KeyHash {
    std::size_t operator()(const std::string& k) const;
  };
  struct Entry {
    std::string key;
    McItem item;
  };
  std::size_t capacity_;
  std::list<Entry> lru_;  // front = most recently used
  std::unordered_map<std::string, std::list<Entry>::iterator, KeyHash> index_;
  std::uint64_t evictions_ = 0;
};

}  // namespace skysim::memcached
