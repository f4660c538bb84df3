#pragma once
// memcached's item memory: a fixed number of items, least recently used evicted first.
// (Real memcached bounds bytes per slab class and keeps an LRU per class; one item-count LRU is
// the assumption here — see docs/models/memcached.md.)
//
// Layout, for speed (the store is on every cache request of the April run): items live in one
// vector and the LRU order is a doubly linked list of indices through them (no allocation per
// item; an evicted item's slot is reused in place); KeyIndex maps a key's hash to its slot.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/memcached/key_index.hpp"
#include "models/memcached/protocol.hpp"

namespace skysim::memcached {

class LruItemStore {
 public:
  explicit LruItemStore(std::size_t capacity_items);

  std::optional<McItem> get(std::string_view key);  // a hit becomes most recently used
  void set(std::string_view key, McItem item);
  bool erase(std::string_view key);

  std::size_t size() const { return index_.size(); }
  std::size_t capacity() const { return capacity_; }
  std::uint64_t evictions() const { return evictions_; }

 private:
  static constexpr std::uint32_t kNil = KeyIndex::kNone;
  struct Node {
    std::string key;  // "post/<id>" fits the small-string buffer: no allocation
    McItem item;
    std::uint32_t hash = 0;     // KeyIndex hash of key, kept for eviction and erase
    std::uint32_t prev = kNil;  // towards the most recently used
    std::uint32_t next = kNil;  // towards the least recently used; the free list's link too
  };

  static std::uint32_t hash_of(std::string_view key);
  std::uint32_t find(std::string_view key, std::uint32_t h) const;
  void unlink(std::uint32_t i);
  void push_front(std::uint32_t i);

  std::size_t capacity_;
  std::vector<Node> nodes_;
  std::uint32_t head_ = kNil;  // most recently used
  std::uint32_t tail_ = kNil;  // least recently used, evicted first
  std::uint32_t free_ = kNil;  // slots released by erase()
  KeyIndex index_;
  std::uint64_t evictions_ = 0;
};

}  // namespace skysim::memcached
