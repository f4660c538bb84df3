#pragma once
// Shuffle sharding (AWS Builders' Library; domain.md §8.4): each tenant gets its own
// combination of k of n workers, the first k distinct values of hash(tenant, i) mod n,
// i = 0, 1, ... A bad tenant can exhaust only its own k workers; another tenant shares all k
// with probability 1/C(n,k). The hash is murmur3 (Cassandra flavour) of (tenant, i).
#include <cstdint>
#include <vector>

namespace scylla {

std::vector<std::uint32_t> shuffle_shard_set(std::uint64_t tenant, std::uint32_t k,
                                             std::uint32_t n);

// C(n, k) as a double (exact below 2^53).
double choose(std::uint32_t n, std::uint32_t k);

}  // namespace scylla
