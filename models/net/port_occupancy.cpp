#include "models/net/port_occupancy.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace skysim::net {
namespace {

auto port_less = [](const std::pair<std::uint16_t, std::uint32_t>& e, std::uint16_t p) {
  return e.first < p;
};

}  // namespace

PortOccupancy::PortOccupancy(std::uint16_t lo, std::uint16_t hi) : lo_(lo), hi_(hi) {
  if (lo > hi) {
    throw std::invalid_argument("port range " + std::to_string(lo) + "-" + std::to_string(hi) +
                                " is empty");
  }
}

void PortOccupancy::check_port(std::uint16_t port) const {
  if (port < lo_ || port > hi_) {
    throw std::logic_error("port " + std::to_string(port) + " outside the ephemeral range");
  }
}

std::uint32_t PortOccupancy::count(std::uint16_t port) const {
  if (port < lo_ || port > hi_) {
    return 0;
  }
  if (dense()) {
    return counts_[port - lo_];
  }
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), port, port_less);
  return (it != sparse_.end() && it->first == port) ? it->second : 0;
}

void PortOccupancy::add(std::uint16_t port) {
  check_port(port);
  if (dense()) {
    std::uint32_t i = port - lo_;
    if (counts_[i]++ == 0) {
      held_bits_[i / 64] |= std::uint64_t{1} << (i % 64);
      ++held_;
    }
    return;
  }
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), port, port_less);
  if (it != sparse_.end() && it->first == port) {
    ++it->second;
    return;
  }
  sparse_.insert(it, {port, 1});
  ++held_;
  if (sparse_.size() > kSparseMax) {
    make_dense();
  }
}

void PortOccupancy::remove(std::uint16_t port) {
  check_port(port);
  if (dense()) {
    std::uint32_t i = port - lo_;
    if (counts_[i] == 0) {
      throw std::logic_error("port " + std::to_string(port) + " released but not held");
    }
    if (--counts_[i] == 0) {
      held_bits_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
      --held_;
    }
    return;
  }
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), port, port_less);
  if (it == sparse_.end() || it->first != port) {
    throw std::logic_error("port " + std::to_string(port) + " released but not held");
  }
  if (--it->second == 0) {
    sparse_.erase(it);
    --held_;
  }
}

void PortOccupancy::make_dense() {
  counts_.assign(range(), 0);
  held_bits_.assign((range() + 63) / 64, 0);
  for (const auto& [port, n] : sparse_) {
    std::uint32_t i = port - lo_;
    counts_[i] = n;
    held_bits_[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  sparse_.clear();
  sparse_.shrink_to_fit();
}

std::optional<std::uint16_t> PortOccupancy::next_free(std::uint16_t from) const {
  if (held_ == range()) {
    return std::nullopt;
  }
  if (from < lo_ || from > hi_) {
    from = lo_;
  }
  return dense() ? next_free_dense(from) : next_free_sparse(from);
}

std::optional<std::uint16_t> PortOccupancy::next_free_sparse(std::uint16_t from) const {
  // Held ports are sorted: walk the run of consecutive held ports that starts at `from`.
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), from, port_less);
  std::uint32_t p = from;
  while (it != sparse_.end() && it->first == p) {
    ++p;
    ++it;
  }
  if (p <= hi_) {
    return static_cast<std::uint16_t>(p);
  }
  p = lo_;  // wrapped: a free port exists (held < range), so this run ends before `from`
  for (it = sparse_.begin(); it != sparse_.end() && it->first == p; ++it) {
    ++p;
  }
  return static_cast<std::uint16_t>(p);
}

std::optional<std::uint16_t> PortOccupancy::next_free_dense(std::uint16_t from) const {
  const std::uint32_t n = range();
  const std::uint32_t words = static_cast<std::uint32_t>(held_bits_.size());
  std::uint32_t start = from - lo_;
  // Two passes over the words: from `start` to the end, then from 0 (wrap).
  for (std::uint32_t pass = 0; pass < 2; ++pass) {
    std::uint32_t i = pass == 0 ? start : 0;
    while (i < n) {
      std::uint32_t w = i / 64;
      std::uint64_t free_bits = ~held_bits_[w] & (~std::uint64_t{0} << (i % 64));
      if (w == words - 1 && n % 64 != 0) {
        free_bits &= (std::uint64_t{1} << (n % 64)) - 1;  // bits past hi are not ports
      }
      if (free_bits != 0) {
        return static_cast<std::uint16_t>(lo_ + w * 64 + std::countr_zero(free_bits));
      }
      i = (w + 1) * 64;
    }
  }
  return std::nullopt;
}

}  // namespace skysim::net
