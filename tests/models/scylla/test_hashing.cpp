#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>

#include "models/scylla/murmur3.hpp"
#include "models/scylla/shuffle_shard.hpp"
#include "models/scylla/token_ring.hpp"

using namespace scylla;

TEST_CASE("murmur3 x64_128 matches the reference vectors") {
  auto empty = murmur3_x64_128("", 0, 0);
  CHECK(empty.first == 0);
  CHECK(empty.second == 0);
  // Reference x64_128 of this sentence: 6c1b07bc7bbc4be3 47939ac4a93c437a (bytes, LE halves).
  const std::string fox = "The quick brown fox jumps over the lazy dog";
  auto h = murmur3_x64_128(fox.data(), fox.size(), 0);
  CHECK(h.first == 0xe34bbc7bbc071b6cULL);
  CHECK(h.second == 0x7a433ca9c49a9347ULL);
}

TEST_CASE("Cassandra token of int 1 is -4069959284402364209") {
  const unsigned char one[4] = {0, 0, 0, 1};  // CQL int, big-endian
  CHECK(murmur3_token(one, 4) == -4069959284402364209LL);
}

TEST_CASE("Cassandra's signed tail differs from C only for tail bytes >= 0x80") {
  const unsigned char low[3] = {1, 2, 3};
  const unsigned char high[3] = {1, 0x82, 3};
  CHECK(murmur3_x64_128(low, 3, 0, true) == murmur3_x64_128(low, 3, 0, false));
  CHECK(murmur3_x64_128(high, 3, 0, true) != murmur3_x64_128(high, 3, 0, false));
  unsigned char block[16];
  std::memset(block, 0xff, 16);  // no tail: identical
  CHECK(murmur3_x64_128(block, 16, 0, true) == murmur3_x64_128(block, 16, 0, false));
}

TEST_CASE("token -> shard: 4096 slices, each split across every shard in order") {
  const std::uint32_t n = 12;
  CHECK(shard_of(INT64_MIN, n) == 0);
  CHECK(shard_of(0, n) == 0);              // 2^63 << 12 wraps to 0
  CHECK(shard_of(0, n, 0) == n / 2);       // without ignore_msb: the ring's middle
  CHECK(shard_of(INT64_MAX, n, 0) == n - 1);
  const std::int64_t slice = std::int64_t{1} << 52;  // 2^64 / 4096
  for (std::int64_t i : {0LL, 1LL, 2047LL, 4095LL}) {
    for (std::uint32_t j = 0; j < n; ++j) {
      std::int64_t t = INT64_MIN + i * slice + (slice * j) / n + 1;
      CHECK(shard_of(t, n) == j);
    }
  }
  CHECK(shard_of(12345, 1) == 0);
  CHECK_THROWS(shard_of(1, 0));
}

TEST_CASE("token ring: RF distinct replicas, ownership by first token >= key") {
  sim::Rng rng(7);
  TokenRing ring(6, 256, 3, rng);
  CHECK(ring.vnodes() == 6 * 256);
  for (std::size_t v = 0; v < ring.vnodes(); v += 37) {
    const NodeId* r = ring.replicas_of_vnode(v);
    CHECK(std::set<NodeId>(r, r + 3).size() == 3);
    CHECK(ring.vnode_of(ring.token_at(v)) == v);
    if (v > 0) {
      CHECK(ring.vnode_of(ring.token_at(v - 1) + 1) == v);
    }
  }
  CHECK(ring.vnode_of(INT64_MAX) == (ring.token_at(ring.vnodes() - 1) == INT64_MAX
                                         ? ring.vnodes() - 1
                                         : 0));  // wraps past the last token
  CHECK_THROWS(TokenRing(2, 4, 3, rng));
  CHECK_THROWS(TokenRing(0, 4, 1, rng));
}

TEST_CASE("token ring: each node owns about 1/N of the keys with 256 vnodes") {
  sim::Rng rng(11);
  TokenRing ring(8, 256, 1, rng);
  std::uint32_t owned[8] = {};
  for (std::int64_t k = 0; k < 80'000; ++k) {
    ++owned[ring.primary(bigint_token(k))];
  }
  for (std::uint32_t c : owned) {
    CHECK(c > 8'500);  // 10,000 expected; 256 vnodes keep the imbalance to a few percent
    CHECK(c < 11'500);
  }
}

TEST_CASE("shuffle shard sets: k distinct members, stable, full overlap ~ 1/C(n,k)") {
  auto a = shuffle_shard_set(42, 2, 8);
  CHECK(a.size() == 2);
  CHECK(a[0] != a[1]);
  CHECK(shuffle_shard_set(42, 2, 8) == a);
  CHECK_THROWS(shuffle_shard_set(1, 0, 8));
  CHECK_THROWS(shuffle_shard_set(1, 9, 8));
  CHECK(choose(8, 2) == 28);
  CHECK(choose(100, 5) == Approx(75'287'520));
  // Over many tenants, the share fully inside tenant 42's set approaches 1/28.
  std::set<std::uint32_t> bad(a.begin(), a.end());
  int full = 0;
  const int tenants = 28'000;
  for (int t = 1000; t < 1000 + tenants; ++t) {
    auto s = shuffle_shard_set(t, 2, 8);
    full += (bad.count(s[0]) && bad.count(s[1])) ? 1 : 0;
  }
  CHECK(full == Approx(tenants / 28.0).epsilon(0.1));
}
