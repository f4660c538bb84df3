#pragma once
// What the UID allocators share whatever their backend: the choice of allocator and its
// parameters, their errors, and the key layout (allocator.hpp has the interface).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace uidalloc {

// The allocator could not produce a UID (every try hit an exhausted sequence). Not retryable.
class AllocationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The hash of a new string is already the UID of another string (the published xxHash attempt:
// "reject the transaction if there's a collision and give up", domain.md §10.1).
class UidCollision : public AllocationError {
 public:
  using AllocationError::AllocationError;
};

enum class AllocatorKind {
  single_counter,        // one "last_uid" key: read, +1, write (the seed's first snippet)
  sharded_sequences,     // random sequence id in the high bits, counter in the low bits (§10.2)
  high_contention,       // FoundationDB directory layer's HighContentionAllocator (§6.5)
  xxhash,                // xxHash64 of the string, optionally narrowed, with a collision check
  snapshot_counter_bug,  // PLANTED BUG: single counter read with a snapshot read
};

AllocatorKind parse_allocator_kind(std::string_view name);
std::string_view allocator_kind_name(AllocatorKind kind);

struct AllocatorConfig {
  AllocatorKind kind = AllocatorKind::sharded_sequences;
  // Sharded sequences. Published: 32-bit prefix, 32-bit counter, shift 32, 5 tries, no break.
  // KVDB code: 16-bit prefix, 48-bit counter, shift 32, 20 tries. Example: 14-bit / 50-bit.
  int prefix_bits = 32;
  int counter_bits = 0;  // 0 = 64 - prefix_bits
  int shift = 0;         // 0 = counter_bits; KVDB shifts by 32 whatever the counter width
  int tries = 5;
  bool break_on_success = false;  // the published loop has no break (domain.md §10.3)
  // xxHash: keep the low hash_bits bits of XXH64 (64 = the real thing; 16-24 to see collisions).
  int hash_bits = 64;
  bool collision_check = true;

  int effective_counter_bits() const { return counter_bits ? counter_bits : 64 - prefix_bits; }
  int effective_shift() const { return shift ? shift : effective_counter_bits(); }
  // True when two different (sequence, counter) pairs can assemble the same UID: the KVDB
  // shift-32-with-48-bit-counter case once any counter passes 2^shift.
  bool ids_may_overlap() const;
  // Throws std::invalid_argument naming the offending field.
  void validate() const;
};

// Key layout shared by the allocators and the interning transaction.
inline constexpr std::string_view kSingleCounterKey = "last_uid";
inline constexpr std::string_view kSequencePrefix = "uid_sequence/";
inline constexpr std::string_view kHcaCounters = "hca/c/";
inline constexpr std::string_view kHcaRecent = "hca/r/";
inline constexpr std::string_view kStringToUid = "s/";
inline constexpr std::string_view kUidToString = "u/";

// The first key after every key starting with `prefix` (FoundationDB's strinc).
std::string prefix_end(std::string_view prefix);
std::string uid_to_string_key(std::uint64_t uid);
std::string string_to_uid_key(std::string_view str);

}  // namespace uidalloc
