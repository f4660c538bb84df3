#include "models/scylla/murmur3.hpp"

#include <cstring>
#include <limits>

namespace scylla {
namespace {

constexpr std::uint64_t kC1 = 0x87c37b91114253d5ULL;
constexpr std::uint64_t kC2 = 0x4cf5ad432745937fULL;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline std::uint64_t fmix(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

inline std::uint64_t load_le64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) {
    v = (v << 8) | p[i];
  }
  return v;
}

// One tail byte widened as Java's (long) byte does (sign-extended) or as C does (zero).
inline std::uint64_t tail_byte(unsigned char b, bool cassandra_tail) {
  if (cassandra_tail) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(b)));
  }
  return b;
}

}  // namespace

std::pair<std::uint64_t, std::uint64_t> murmur3_x64_128(const void* data, std::size_t len,
                                                        std::uint64_t seed,
                                                        bool cassandra_tail) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  const std::size_t nblocks = len / 16;
  std::uint64_t h1 = seed;
  std::uint64_t h2 = seed;
  for (std::size_t i = 0; i < nblocks; ++i) {
    std::uint64_t k1 = load_le64(bytes + i * 16);
    std::uint64_t k2 = load_le64(bytes + i * 16 + 8);
    k1 *= kC1;
    k1 = rotl(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
    h1 = rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= kC2;
    k2 = rotl(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
    h2 = rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }
  const unsigned char* tail = bytes + nblocks * 16;
  const std::size_t rest = len & 15;
  std::uint64_t k1 = 0;
  std::uint64_t k2 = 0;
  for (std::size_t i = rest; i > 8; --i) {
    k2 ^= tail_byte(tail[i - 1], cassandra_tail) << ((i - 9) * 8);
  }
  if (rest > 8) {
    k2 *= kC2;
    k2 = rotl(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
  }
  for (std::size_t i = rest < 8 ? rest : 8; i > 0; --i) {
    k1 ^= tail_byte(tail[i - 1], cassandra_tail) << ((i - 1) * 8);
  }
  if (rest > 0) {
    k1 *= kC1;
    k1 = rotl(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
  }
  h1 ^= len;
  h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

Token murmur3_token(const void* data, std::size_t len) {
  auto h = murmur3_x64_128(data, len, 0, true);
  auto t = static_cast<Token>(h.first);
  return t == std::numeric_limits<Token>::min() ? std::numeric_limits<Token>::max() : t;
}

Token bigint_token(std::int64_t key) {
  unsigned char be[8];
  auto u = static_cast<std::uint64_t>(key);
  for (int i = 7; i >= 0; --i) {
    be[i] = static_cast<unsigned char>(u & 0xff);
    u >>= 8;
  }
  return murmur3_token(be, 8);
}

}  // namespace scylla
