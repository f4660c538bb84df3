#pragma once
// The vnode token ring (domain.md §7.2) and Scylla's token -> shard mapping (domain.md §7.3).
// Each node takes num_tokens random tokens from a named stream; a key belongs to the first ring
// token >= its token (wrapping), and its replicas are the next RF distinct nodes clockwise
// (SimpleStrategy: one DC, no racks).
#include <cstdint>
#include <vector>

#include "models/scylla/murmur3.hpp"
#include "sim/rng.hpp"

namespace scylla {

using NodeId = std::uint32_t;

// Scylla's biased-token-round-robin: unbias by +2^63, drop ignore_msb top bits, then
// floor(fraction * shard_count). ignore_msb is forced to 0 for a single shard, as Scylla does.
std::uint32_t shard_of(Token token, std::uint32_t shard_count, std::uint32_t ignore_msb = 12);

class TokenRing {
 public:
  // Throws std::invalid_argument for zero nodes/tokens or rf > nodes.
  TokenRing(std::uint32_t nodes, std::uint32_t num_tokens, std::uint32_t rf, sim::Rng& rng);

  // Index of the vnode (ring position) owning `t`.
  std::size_t vnode_of(Token t) const;
  // RF distinct nodes, primary first.
  const NodeId* replicas_of_vnode(std::size_t v) const { return &replicas_[v * rf_]; }
  const NodeId* replicas(Token t) const { return replicas_of_vnode(vnode_of(t)); }
  NodeId primary(Token t) const { return replicas(t)[0]; }

  std::uint32_t nodes() const { return nodes_; }
  std::uint32_t rf() const { return rf_; }
  std::size_t vnodes() const { return tokens_.size(); }
  Token token_at(std::size_t v) const { return tokens_[v]; }

 private:
  std::uint32_t nodes_;
  std::uint32_t rf_;
  std::vector<Token> tokens_;     // sorted
  std::vector<NodeId> owner_;     // owner_[v] = node of tokens_[v]
  std::vector<NodeId> replicas_;  // rf_ per vnode
};

}  // namespace scylla
