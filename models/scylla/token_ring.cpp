#include "models/scylla/token_ring.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace scylla {

std::uint32_t shard_of(Token token, std::uint32_t shard_count, std::uint32_t ignore_msb) {
  if (shard_count == 0) {
    throw std::invalid_argument("scylla: shard_count must be >= 1");
  }
  if (shard_count == 1) {
    return 0;
  }
  if (ignore_msb >= 64) {
    throw std::invalid_argument("scylla: sharding_ignore_msb must be < 64");
  }
  std::uint64_t u = static_cast<std::uint64_t>(token) + (std::uint64_t{1} << 63);
  u <<= ignore_msb;
  return static_cast<std::uint32_t>((static_cast<unsigned __int128>(u) * shard_count) >> 64);
}

TokenRing::TokenRing(std::uint32_t nodes, std::uint32_t num_tokens, std::uint32_t rf,
                     sim::Rng& rng)
    : nodes_(nodes), rf_(rf) {
  if (nodes == 0 || num_tokens == 0) {
    throw std::invalid_argument("scylla: token ring needs >= 1 node and >= 1 token per node");
  }
  if (rf == 0 || rf > nodes) {
    throw std::invalid_argument("scylla: replication_factor " + std::to_string(rf) +
                                " must be in 1.." + std::to_string(nodes) + " (the node count)");
  }
  const std::size_t n = static_cast<std::size_t>(nodes) * num_tokens;
  std::vector<std::pair<Token, NodeId>> ring;
  ring.reserve(n);
  for (NodeId node = 0; node < nodes; ++node) {
    for (std::uint32_t i = 0; i < num_tokens; ++i) {
      ring.emplace_back(static_cast<Token>(rng.next_u64()), node);
    }
  }
  std::sort(ring.begin(), ring.end());  // ties (p ~ 2^-64) broken by node id: deterministic
  tokens_.reserve(n);
  owner_.reserve(n);
  for (const auto& [t, node] : ring) {
    tokens_.push_back(t);
    owner_.push_back(node);
  }
  replicas_.resize(n * rf_);
  for (std::size_t v = 0; v < n; ++v) {
    std::uint32_t found = 0;
    for (std::size_t step = 0; found < rf_; ++step) {
      NodeId cand = owner_[(v + step) % n];
      NodeId* out = &replicas_[v * rf_];
      if (std::find(out, out + found, cand) == out + found) {
        out[found++] = cand;
      }
    }
  }
}

std::size_t TokenRing::vnode_of(Token t) const {
  auto it = std::lower_bound(tokens_.begin(), tokens_.end(), t);
  return it == tokens_.end() ? 0 : static_cast<std::size_t>(it - tokens_.begin());
}

}  // namespace scylla
