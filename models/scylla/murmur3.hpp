#pragma once
// MurmurHash3 x64_128 as Cassandra's Murmur3Partitioner computes it (domain.md §7.2), written
// from the algorithm's description. Cassandra's Java port reads the tail bytes as *signed*
// bytes (sign-extended before shifting); Scylla keeps that quirk for token compatibility, so
// keys whose length is not a multiple of 16 and whose tail holds a byte >= 0x80 hash
// differently from the reference C implementation. The token is the first 64-bit half, signed;
// INT64_MIN is reserved as the ring's minimum and maps to INT64_MAX.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace scylla {

using Token = std::int64_t;

// (h1, h2) of murmur3 x64_128 with Cassandra's signed-tail quirk when cassandra_tail is true.
std::pair<std::uint64_t, std::uint64_t> murmur3_x64_128(const void* data, std::size_t len,
                                                        std::uint64_t seed,
                                                        bool cassandra_tail = true);

Token murmur3_token(const void* data, std::size_t len);
inline Token murmur3_token(std::string_view s) { return murmur3_token(s.data(), s.size()); }

// The token of a CQL bigint partition key (8 bytes, big-endian as CQL serialises it).
Token bigint_token(std::int64_t key);

}  // namespace scylla
