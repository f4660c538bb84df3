#include "components/uidalloc/allocator_config.hpp"

#include "components/uidalloc/key_codec.hpp"

namespace uidalloc {

namespace {
struct KindName {
  AllocatorKind kind;
  std::string_view name;
};
constexpr KindName kKindNames[] = {
    {AllocatorKind::single_counter, "single-counter"},
    {AllocatorKind::sharded_sequences, "sharded-sequences"},
    {AllocatorKind::high_contention, "hca"},
    {AllocatorKind::xxhash, "xxhash"},
    {AllocatorKind::snapshot_counter_bug, "snapshot-counter-bug"},
};
}  // namespace

AllocatorKind parse_allocator_kind(std::string_view name) {
  for (const auto& k : kKindNames) {
    if (k.name == name) {
      return k.kind;
    }
  }
  std::string known;
  for (const auto& k : kKindNames) {
    known += (known.empty() ? "" : ", ") + std::string(k.name);
  }
  throw std::invalid_argument("unknown allocator '" + std::string(name) + "' (known: " + known +
                              ")");
}

std::string_view allocator_kind_name(AllocatorKind kind) {
  for (const auto& k : kKindNames) {
    if (k.kind == kind) {
      return k.name;
    }
  }
  throw std::invalid_argument("allocator_kind_name: invalid AllocatorKind");
}

bool AllocatorConfig::ids_may_overlap() const {
  return effective_shift() < effective_counter_bits();
}

void AllocatorConfig::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("allocator: " + what); };
  if (prefix_bits < 1 || prefix_bits > 32) {
    fail("prefix_bits must be in 1..32 (the sequence id is a uint32), got " +
         std::to_string(prefix_bits));
  }
  int cb = effective_counter_bits();
  if (cb < 1 || cb > 63) {
    fail("counter_bits must be in 1..63, got " + std::to_string(cb));
  }
  int sh = effective_shift();
  if (sh < 1 || sh + prefix_bits > 64) {
    fail("shift + prefix_bits must fit in 64 bits (shift " + std::to_string(sh) + ", prefix_bits " +
         std::to_string(prefix_bits) + ")");
  }
  if (tries < 1 || tries > 1000) {
    fail("tries must be in 1..1000, got " + std::to_string(tries));
  }
  if (hash_bits < 1 || hash_bits > 64) {
    fail("hash_bits must be in 1..64, got " + std::to_string(hash_bits));
  }
}

std::string prefix_end(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty() && static_cast<unsigned char>(out.back()) == 0xFF) {
    out.pop_back();
  }
  if (out.empty()) {
    throw std::invalid_argument("prefix_end: prefix has no successor");
  }
  out.back() = static_cast<char>(static_cast<unsigned char>(out.back()) + 1);
  return out;
}

std::string uid_to_string_key(std::uint64_t uid) {
  return std::string(kUidToString) + encode_be64(uid);
}

std::string string_to_uid_key(std::string_view str) {
  return std::string(kStringToUid) + std::string(str);
}

}  // namespace uidalloc
