#pragma once
// A buffered write as the client ships it to the commit proxy (applied in order at commit).
#include <cstddef>
#include <cstdint>
#include <string>

namespace fdb {

enum class MutationType : std::uint8_t {
  set,
  clear,
  clear_range,  // [key, end)
  add,          // little-endian int64 ADD; the operand is `value`
  set_versionstamped_key,    // the 10-byte stamp replaces key[offset, offset+10)
  set_versionstamped_value,  // the 10-byte stamp replaces value[offset, offset+10)
};

struct Mutation {
  MutationType type;
  std::string key;
  std::string value;  // set / add operand / versionstamped value
  std::string end;    // clear_range
  std::size_t offset = 0;
  bool write_conflict = false;  // the key is in the transaction's write-conflict set
};

// Versionstamp: 8-byte big-endian commit version + 2-byte big-endian batch order (domain.md §6.4).
inline constexpr std::size_t kVersionstampSize = 10;

}  // namespace fdb
