#include "models/memcached/item_store.hpp"

#include <xxhash.h>

#include <stdexcept>

namespace skysim::memcached {

// XXH3, not std::hash (banned: it may differ between library versions, and slot positions,
// though never observable, should not). The top 32 bits are as well mixed as any.
std::uint32_t LruItemStore::hash_of(std::string_view key) {
  return static_cast<std::uint32_t>(XXH3_64bits(key.data(), key.size()) >> 32);
}

LruItemStore::LruItemStore(std::size_t capacity_items) : capacity_(capacity_items) {
  if (capacity_items == 0) {
    throw std::invalid_argument("memcached: capacity_items must be at least 1");
  }
  if (capacity_items >= kNil) {
    throw std::invalid_argument("memcached: capacity_items must be below 2^32 - 1");
  }
}

std::uint32_t LruItemStore::find(std::string_view key, std::uint32_t h) const {
  return index_.find(h, [&](std::uint32_t i) { return nodes_[i].key == key; });
}

void LruItemStore::unlink(std::uint32_t i) {
  Node& n = nodes_[i];
  (n.prev == kNil ? head_ : nodes_[n.prev].next) = n.next;
  (n.next == kNil ? tail_ : nodes_[n.next].prev) = n.prev;
}

void LruItemStore::push_front(std::uint32_t i) {
  Node& n = nodes_[i];
  n.prev = kNil;
  n.next = head_;
  (head_ == kNil ? tail_ : nodes_[head_].prev) = i;
  head_ = i;
}

std::optional<McItem> LruItemStore::get(std::string_view key) {
  const std::uint32_t i = find(key, hash_of(key));
  if (i == kNil) {
    return std::nullopt;
  }
  if (i != head_) {
    unlink(i);
    push_front(i);
  }
  return nodes_[i].item;
}

void LruItemStore::set(std::string_view key, McItem item) {
  const std::uint32_t h = hash_of(key);
  std::uint32_t i = find(key, h);
  if (i != kNil) {
    bytes_ += item_bytes(key, item);
    bytes_ -= item_bytes(key, nodes_[i].item);
    nodes_[i].item = item;
    if (i != head_) {
      unlink(i);
      push_front(i);
    }
    return;
  }
  if (index_.size() >= capacity_) {  // evict the least recently used; its slot takes the key
    i = tail_;
    index_.erase(nodes_[i].hash, i);
    unlink(i);
    bytes_ -= item_bytes(nodes_[i].key, nodes_[i].item);
    ++evictions_;
  } else if (free_ != kNil) {
    i = free_;
    free_ = nodes_[i].next;
  } else {
    i = static_cast<std::uint32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  Node& n = nodes_[i];
  n.key.assign(key);
  n.item = item;
  n.hash = h;
  bytes_ += item_bytes(key, item);
  push_front(i);
  index_.insert(h, i);
}

bool LruItemStore::erase(std::string_view key) {
  const std::uint32_t h = hash_of(key);
  const std::uint32_t i = find(key, h);
  if (i == kNil) {
    return false;
  }
  index_.erase(h, i);
  unlink(i);
  bytes_ -= item_bytes(key, nodes_[i].item);
  nodes_[i].next = free_;
  free_ = i;
  return true;
}

}  // namespace skysim::memcached
