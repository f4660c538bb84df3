#pragma once
// Byte encodings the allocators store: decimal strings as the published Go code writes them
// (strconv.FormatUint), big-endian integers for ordered keys (as FoundationDB's tuple layer
// orders non-negative integers), and the little-endian int64 that atomic ADD operates on.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace uidalloc {

inline std::string encode_be64(std::uint64_t v) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = static_cast<char>(v & 0xFF);
    v >>= 8;
  }
  return out;
}

inline std::uint64_t decode_be64(std::string_view s) {
  if (s.size() != 8) {
    throw std::invalid_argument("decode_be64: expected 8 bytes, got " + std::to_string(s.size()));
  }
  std::uint64_t v = 0;
  for (char c : s) {
    v = (v << 8) | static_cast<unsigned char>(c);
  }
  return v;
}

inline std::string encode_le64(std::int64_t value) {
  auto v = static_cast<std::uint64_t>(value);
  std::string out(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) {
    out[i] = static_cast<char>(v & 0xFF);
    v >>= 8;
  }
  return out;
}

// FoundationDB's ADD treats a missing or shorter value as zero-extended.
inline std::int64_t decode_le64(std::string_view s) {
  if (s.size() > 8) {
    throw std::invalid_argument("decode_le64: value longer than 8 bytes");
  }
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
  }
  return static_cast<std::int64_t>(v);
}

// strconv.ParseUint(s, 10, 64) with a clear error.
inline std::uint64_t parse_decimal(std::string_view s) {
  if (s.empty() || s.size() > 20) {
    throw std::invalid_argument("parse_decimal: not a uint64: '" + std::string(s) + "'");
  }
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') {
      throw std::invalid_argument("parse_decimal: not a uint64: '" + std::string(s) + "'");
    }
    std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) {
      throw std::invalid_argument("parse_decimal: overflow: '" + std::string(s) + "'");
    }
    v = v * 10 + d;
  }
  return v;
}

}  // namespace uidalloc
