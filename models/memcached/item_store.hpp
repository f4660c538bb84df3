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
  // The items' memory as memcached allocates it: per item ITEM_ntotal = sizeof(item) (48 bytes
  // on 64-bit) + 8 for the CAS + the key and its NUL + the value and its "\r\n" (memcached's
  // items.h). assumption: no slab-class rounding (up to 25 % more per item with -f 1.25) and
  // none of the server's own memory (hash table, connection buffers).
  std::uint64_t bytes() const { return bytes_; }
  static std::uint64_t item_bytes(std::string_view key, const McItem& item) {
    return kItemHeader + key.size() + 1 + item.value_bytes + 2;
  }

 private:
  static constexpr std::uint32_t kNil = KeyIndex::kNone;
  static constexpr std::uint64_t kItemHeader = 48 + 8;
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
  std::uint64_t bytes_ = 0;
};

}  // namespace skysim::memcached
