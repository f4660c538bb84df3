#include "models/social/follow_graph.hpp"

#include <boost/iterator/transform_iterator.hpp>
#include <stdexcept>

namespace social {
namespace {

struct Reversed {
  FollowEdge operator()(const FollowEdge& e) const { return {e.second, e.first}; }
};

std::span<const UserId> adjacent(const FollowGraph::Csr& g, UserId u) {
  auto [first, last] = boost::adjacent_vertices(u, g);
  if (first == last) {
    return {};
  }
  return {&*first, static_cast<std::size_t>(last - first)};
}

}  // namespace

FollowGraph::FollowGraph(std::uint32_t users, std::vector<FollowEdge>&& edges)
    : users_(users), edges_(edges.size()) {
  if (edges.size() >= UINT32_MAX) {
    throw std::length_error("social: more than 2^32-1 follow edges do not fit 32-bit indices");
  }
  for (const FollowEdge& e : edges) {
    if (e.first >= users || e.second >= users) {
      throw std::invalid_argument("social: follow edge " + std::to_string(e.first) + " -> " +
                                  std::to_string(e.second) + " names a user >= " +
                                  std::to_string(users));
    }
    if (e.first == e.second) {
      throw std::invalid_argument("social: user " + std::to_string(e.first) +
                                  " follows itself");
    }
  }
  follows_ = Csr(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), users);
  auto rb = boost::make_transform_iterator(edges.cbegin(), Reversed{});
  auto re = boost::make_transform_iterator(edges.cend(), Reversed{});
  followers_ = Csr(boost::edges_are_unsorted_multi_pass, rb, re, users);
  std::vector<FollowEdge>().swap(edges);
}

FollowGraph::FollowGraph(std::uint32_t users, Csr&& follows, Csr&& followers)
    : users_(users),
      edges_(follows.m_forward.m_column.size()),
      follows_(std::move(follows)),
      followers_(std::move(followers)) {}

void FollowGraph::check(UserId u) const {
  if (u >= users_) {
    throw std::out_of_range("social: user " + std::to_string(u) + " >= " +
                            std::to_string(users_) + " users");
  }
}

std::span<const UserId> FollowGraph::followers(UserId author) const {
  check(author);
  return adjacent(followers_, author);
}

std::span<const UserId> FollowGraph::follows(UserId user) const {
  check(user);
  return adjacent(follows_, user);
}

std::size_t FollowGraph::memory_bytes() const {
  // Each CSR: (users + 1) row starts and one column entry per edge, all 32-bit.
  return 2 * ((static_cast<std::size_t>(users_) + 1) * 4 + edges_ * 4);
}

UserId FollowGraph::id_of(const std::string& n) const {
  for (const auto& [u, name] : names_) {
    if (name == n) {
      return u;
    }
  }
  throw std::out_of_range("social: no account named '" + n + "' in the follow graph");
}

}  // namespace social
