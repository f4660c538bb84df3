#pragma once
// The follow graph, in both directions, as two Boost.Graph compressed-sparse-row graphs over
// 32-bit vertex and edge indices: followers(author) is what fan-out walks page by page, and
// follow_count(user) is what the lossy filter needs (domain.md §8.3). Memory: 4 bytes per edge
// per direction (8 B/edge) plus 8 B per user; building needs 8 B/edge more, once.
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace social {

using UserId = std::uint32_t;
// (follower, followee): "follower follows followee".
using FollowEdge = std::pair<UserId, UserId>;

class FollowGraph {
 public:
  using Csr = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property,
                                                 boost::no_property, boost::no_property,
                                                 std::uint32_t, std::uint32_t>;

  // Takes the edges (any order; self-follows and out-of-range ids are rejected; duplicates are
  // kept as given, so dedupe before if the source may repeat). The vector is consumed.
  FollowGraph(std::uint32_t users, std::vector<FollowEdge>&& edges);
  // Both directions as already built (graph_file.hpp reads them back from a saved graph); no
  // check beyond the sizes, which the reader has made.
  FollowGraph(std::uint32_t users, Csr&& follows, Csr&& followers);

  std::uint32_t users() const { return users_; }
  std::uint64_t edges() const { return edges_; }

  // Who follows `author` (fan-out targets), in the order the edges were given.
  std::span<const UserId> followers(UserId author) const;
  // Whom `user` follows.
  std::span<const UserId> follows(UserId user) const;
  std::uint32_t follower_count(UserId author) const {
    return static_cast<std::uint32_t>(followers(author).size());
  }
  std::uint32_t follow_count(UserId user) const {
    return static_cast<std::uint32_t>(follows(user).size());
  }

  // Bytes held by both CSR structures.
  std::size_t memory_bytes() const;

  // Names given to special accounts by the population builder ("celebrity", "bot/1", ...).
  void name(UserId u, std::string n) { names_.emplace_back(u, std::move(n)); }
  // Throws std::out_of_range naming the account if unknown.
  UserId id_of(const std::string& n) const;
  const std::vector<std::pair<UserId, std::string>>& named() const { return names_; }

  // The two CSR structures, for graph_file.hpp's writer.
  const Csr& follows_csr() const { return follows_; }
  const Csr& followers_csr() const { return followers_; }

 private:
  void check(UserId u) const;

  std::uint32_t users_;
  std::uint64_t edges_;
  Csr follows_;    // follower -> followee
  Csr followers_;  // followee -> follower
  std::vector<std::pair<UserId, std::string>> names_;
};

}  // namespace social
