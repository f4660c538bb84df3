#pragma once
// How many sockets hold each port of the ephemeral range, for one local IP (or one 4-tuple
// destination). It answers the two questions a dial asks — "is any port free?" in O(1) and
// "which is the next free port from here?" without scanning 28k ports when the range is nearly
// full. Sparse (a sorted vector) while few ports are held, which is the common case for the
// random-loopback dialer's millions of source IPs; dense (counts plus a bitmap of held ports,
// searched 64 ports per step) once a single IP holds many.
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace skysim::net {

class PortOccupancy {
 public:
  PortOccupancy(std::uint16_t lo, std::uint16_t hi);

  void add(std::uint16_t port);
  void remove(std::uint16_t port);  // throws std::logic_error when the port holds nothing
  std::uint32_t count(std::uint16_t port) const;

  std::uint32_t held_ports() const { return held_; }  // ports with count > 0
  std::uint32_t free_ports() const { return range() - held_; }
  std::uint32_t range() const { return std::uint32_t{hi_} - lo_ + 1; }
  bool empty() const { return held_ == 0; }

  // The first port at or after `from` (wrapping past hi to lo) that nothing holds.
  std::optional<std::uint16_t> next_free(std::uint16_t from) const;

  template <class F>  // f(port, count) in port order
  void for_each(F&& f) const {
    if (dense()) {
      for (std::uint32_t i = 0; i < counts_.size(); ++i) {
        if (counts_[i] != 0) {
          f(static_cast<std::uint16_t>(lo_ + i), counts_[i]);
        }
      }
    } else {
      for (const auto& [port, n] : sparse_) {
        f(port, n);
      }
    }
  }

  // Ports above this many switch to the dense form (and stay dense until the owner drops it).
  static constexpr std::size_t kSparseMax = 64;

 private:
  bool dense() const { return !counts_.empty(); }
  void make_dense();
  std::optional<std::uint16_t> next_free_sparse(std::uint16_t from) const;
  std::optional<std::uint16_t> next_free_dense(std::uint16_t from) const;
  void check_port(std::uint16_t port) const;

  std::uint16_t lo_;
  std::uint16_t hi_;
  std::uint32_t held_ = 0;
  // Sorted by port; the first few entries live inline, so an IP holding one port (the
  // random-loopback case) allocates nothing.
  boost::container::small_vector<std::pair<std::uint16_t, std::uint32_t>, 2> sparse_;
  std::vector<std::uint32_t> counts_;     // dense: index = port - lo
  std::vector<std::uint64_t> held_bits_;  // dense: bit set = held
};

}  // namespace skysim::net
