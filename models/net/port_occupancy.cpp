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
  set_window(lo, hi);
}

void PortOccupancy::set_window(std::uint16_t lo, std::uint16_t hi) {
  if (lo == 0 || lo > hi) {
    throw std::invalid_argument("port range " + std::to_string(lo) + "-" + std::to_string(hi) +
                                " is empty or starts at 0");
  }
  lo_ = lo;
  hi_ = hi;
  held_in_ = 0;
  for_each([&](std::uint16_t port, std::uint32_t) { held_in_ += in_window(port) ? 1 : 0; });
}

void PortOccupancy::check_port(std::uint16_t port) {
  if (port == 0) {
    throw std::logic_error("port 0 held by a socket");
  }
}

std::uint32_t PortOccupancy::count(std::uint16_t port) const {
  if (dense()) {
    return counts_[port];
  }
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), port, port_less);
  return (it != sparse_.end() && it->first == port) ? it->second : 0;
}

void PortOccupancy::add(std::uint16_t port) {
  check_port(port);
  if (dense()) {
    if (counts_[port]++ == 0) {
      held_bits_[port / 64] |= std::uint64_t{1} << (port % 64);
      ++held_all_;
      held_in_ += in_window(port) ? 1 : 0;
    }
    return;
  }
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), port, port_less);
  if (it != sparse_.end() && it->first == port) {
    ++it->second;
    return;
  }
  sparse_.insert(it, {port, 1});
  ++held_all_;
  held_in_ += in_window(port) ? 1 : 0;
  if (sparse_.size() > kSparseMax) {
    make_dense();
  }
}

void PortOccupancy::remove(std::uint16_t port) {
  check_port(port);
  if (dense()) {
    if (counts_[port] == 0) {
      throw std::logic_error("port " + std::to_string(port) + " released but not held");
    }
    if (--counts_[port] == 0) {
      held_bits_[port / 64] &= ~(std::uint64_t{1} << (port % 64));
      --held_all_;
      held_in_ -= in_window(port) ? 1 : 0;
    }
    return;
  }
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), port, port_less);
  if (it == sparse_.end() || it->first != port) {
    throw std::logic_error("port " + std::to_string(port) + " released but not held");
  }
  if (--it->second == 0) {
    sparse_.erase(it);
    --held_all_;
    held_in_ -= in_window(port) ? 1 : 0;
  }
}

void PortOccupancy::make_dense() {
  counts_.assign(kPorts, 0);
  held_bits_.assign(kPorts / 64, 0);
  for (const auto& [port, n] : sparse_) {
    counts_[port] = n;
    held_bits_[port / 64] |= std::uint64_t{1} << (port % 64);
  }
  sparse_.clear();
  sparse_.shrink_to_fit();
}

std::optional<std::uint16_t> PortOccupancy::next_free(std::uint16_t from) const {
  if (held_in_ == range()) {
    return std::nullopt;
  }
  if (from < lo_ || from > hi_) {
    from = lo_;
  }
  if (!dense()) return next_free_sparse(from);
  if (auto p = first_clear(from, hi_)) return p;
  return from > lo_ ? first_clear(lo_, from - 1u) : std::nullopt;  // wrapped
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
  // Wrapped: a free port of the range exists (held < range), so this run ends before `from`.
  p = lo_;
  for (it = std::lower_bound(sparse_.begin(), sparse_.end(), lo_, port_less);
       it != sparse_.end() && it->first == p; ++it) {
    ++p;
  }
  return static_cast<std::uint16_t>(p);
}

std::optional<std::uint16_t> PortOccupancy::first_clear(std::uint32_t a, std::uint32_t b) const {
  for (std::uint32_t i = a; i <= b;) {
    const std::uint32_t w = i / 64;
    std::uint64_t free_bits = ~held_bits_[w] & (~std::uint64_t{0} << (i % 64));
    if (w == b / 64 && b % 64 != 63) {
      free_bits &= (std::uint64_t{1} << (b % 64 + 1)) - 1;  // bits past b are not searched
    }
    if (free_bits != 0) {
      return static_cast<std::uint16_t>(w * 64 + std::countr_zero(free_bits));
    }
    i = (w + 1) * 64;
  }
  return std::nullopt;
}

}  // namespace skysim::net
