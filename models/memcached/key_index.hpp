#pragma once
// The item store's hash index: 32-bit key hash -> 32-bit item slot, open addressing with linear
// probing in one flat array of 8-byte slots. Why not std::unordered_map: at ~10^5-10^6 items
// every lookup there chases a bucket pointer and a node pointer into cold memory (18 % of the
// April run); here a lookup is one cache line of slots, and a miss never touches an item.
//
// The index does not own keys: find() asks the caller whether a candidate slot holds the key.
// Removal shifts later slots back (no tombstones), so lookups never slow down with churn.
// Slot positions depend only on the hashes and the insertion order, never on addresses.
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace skysim::memcached {

class KeyIndex {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  std::size_t size() const { return size_; }

  // The value whose hash is `h` and for which is_key(value) holds, or kNone.
  template <class IsKey>
  std::uint32_t find(std::uint32_t h, IsKey&& is_key) const {
    if (slots_.empty()) return kNone;
    for (std::size_t i = home(h);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kNone) return kNone;
      if (s.hash == h && is_key(s.value)) return s.value;
    }
  }

  // Adds value under hash `h`; the caller has checked that its key is absent.
  void insert(std::uint32_t h, std::uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();  // load factor at most 1/2
    place(h, value);
    ++size_;
  }

  // Removes the slot holding `value` (which must be present under hash `h`).
  void erase(std::uint32_t h, std::uint32_t value) {
    std::size_t hole = home(h);
    while (slots_[hole].value != value) hole = (hole + 1) & mask_;
    // Backward-shift deletion: move each later slot of the run into the hole if its home lies
    // cyclically at or before the hole, so every remaining key stays reachable from its home.
    for (std::size_t j = (hole + 1) & mask_; slots_[j].value != kNone; j = (j + 1) & mask_) {
      const std::size_t k = home(slots_[j].hash);
      const bool movable = hole <= j ? (k <= hole || k > j) : (k <= hole && k > j);
      if (movable) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = Slot{};
    --size_;
  }

 private:
  struct Slot {
    std::uint32_t value = kNone;
    std::uint32_t hash = 0;
  };

  // The top bits of the (already well-mixed) hash pick the home slot.
  std::size_t home(std::uint32_t h) const { return static_cast<std::size_t>(h) >> shift_; }

  void place(std::uint32_t h, std::uint32_t value) {
    std::size_t i = home(h);
    while (slots_[i].value != kNone) i = (i + 1) & mask_;
    slots_[i] = Slot{value, h};
  }

  void grow() {
    const std::size_t n = slots_.empty() ? 16 : slots_.size() * 2;
    if (n > (std::size_t{1} << 32)) throw std::length_error("memcached: item index too large");
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(n, Slot{});
    mask_ = n - 1;
    shift_ = 32 - static_cast<unsigned>(__builtin_ctzll(n));
    for (const Slot& s : old) {
      if (s.value != kNone) place(s.hash, s.value);
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  unsigned shift_ = 32;
  std::size_t size_ = 0;
};

}  // namespace skysim::memcached
