#pragma once
// Byte-level semantics of the atomic operations the model supports (FoundationDB API docs).
#include <cstdint>
#include <optional>
#include <string>

#include "components/uidalloc/key_codec.hpp"
#include "models/fdb/config.hpp"
#include "models/fdb/mutation.hpp"

namespace fdb {

// ADD: both operands little-endian integers; a missing or shorter existing value counts as
// zero-extended, and the result has the operand's length (carry beyond it is dropped).
inline std::string add_little_endian(const std::optional<std::string>& existing,
                                     const std::string& operand) {
  std::string out(operand.size(), '\0');
  unsigned carry = 0;
  for (std::size_t i = 0; i < operand.size(); ++i) {
    unsigned a = existing && i < existing->size() ? static_cast<unsigned char>((*existing)[i]) : 0;
    unsigned sum = a + static_cast<unsigned char>(operand[i]) + carry;
    out[i] = static_cast<char>(sum & 0xFF);
    carry = sum >> 8;
  }
  return out;
}

// The operand of an atomic ADD of an int64: the components' codec (components/uidalloc).
inline std::string little_endian_int64(std::int64_t value) { return uidalloc::encode_le64(value); }

// 8-byte big-endian commit version + 2-byte big-endian order within the batch (domain.md §6.4).
inline std::string versionstamp(Version cv, std::uint16_t batch_index) {
  std::string out(kVersionstampSize, '\0');
  auto v = static_cast<std::uint64_t>(cv);
  for (int i = 7; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = static_cast<char>(v & 0xFF);
    v >>= 8;
  }
  out[8] = static_cast<char>(batch_index >> 8);
  out[9] = static_cast<char>(batch_index & 0xFF);
  return out;
}

}  // namespace fdb
