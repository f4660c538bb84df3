#pragma once
// How many sockets hold each port, for one local IP (or one 4-tuple destination), and the
// search over the ephemeral range (the window, net.ipv4.ip_local_port_range). It answers the two
// questions a dial asks — "is any port of the range free?" in O(1) and "which is the next free
// port of the range from here?" without scanning 28k ports when the range is nearly full.
// Ports outside the window may be held too: a socket keeps its port when the range is changed
// during the run (set_window), and the search only skips it. Sparse (a sorted vector) while few
// ports are held, which is the common case for the random-loopback dialer's millions of source
// IPs; dense (counts plus a bitmap of all 65,536 ports, searched 64 ports per step) once a
// single IP holds many.
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace skysim::net {

class PortOccupancy {
 public:
  PortOccupancy(std::uint16_t lo, std::uint16_t hi);

  void add(std::uint16_t port);     // any port but 0
  void remove(std::uint16_t port);  // throws std::logic_error when the port holds nothing
  std::uint32_t count(std::uint16_t port) const;

  // The range searched from now on; what is held stays held. Throws for an empty range or 0.
  void set_window(std::uint16_t lo, std::uint16_t hi);
  bool in_window(std::uint16_t port) const { return port >= lo_ && port <= hi_; }

  std::uint32_t held_ports() const { return held_in_; }  // ports of the range with count > 0
  std::uint32_t free_ports() const { return range() - held_in_; }
  std::uint32_t range() const { return std::uint32_t{hi_} - lo_ + 1; }
  bool empty() const { return held_all_ == 0; }  // no port held, in the range or not

  // The first port of the range at or after `from` (wrapping past hi to lo) that nothing holds.
  std::optional<std::uint16_t> next_free(std::uint16_t from) const;

  template <class F>  // f(port, count) in port order, every held port
  void for_each(F&& f) const {
    if (dense()) {
      for (std::uint32_t p = 0; p < counts_.size(); ++p) {
        if (counts_[p] != 0) {
          f(static_cast<std::uint16_t>(p), counts_[p]);
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
  static constexpr std::uint32_t kPorts = 65536;
  bool dense() const { return !counts_.empty(); }
  void make_dense();
  std::optional<std::uint16_t> next_free_sparse(std::uint16_t from) const;
  // The first port in [a, b] whose bit is clear.
  std::optional<std::uint16_t> first_clear(std::uint32_t a, std::uint32_t b) const;
  static void check_port(std::uint16_t port);

  std::uint16_t lo_;
  std::uint16_t hi_;
  std::uint32_t held_in_ = 0;   // held ports inside [lo_, hi_]
  std::uint32_t held_all_ = 0;  // held ports anywhere
  // Sorted by port; the first few entries live inline, so an IP holding one port (the
  // random-loopback case) allocates nothing.
  boost::container::small_vector<std::pair<std::uint16_t, std::uint32_t>, 2> sparse_;
  std::vector<std::uint32_t> counts_;     // dense: index = port
  std::vector<std::uint64_t> held_bits_;  // dense: bit set = held
};

}  // namespace skysim::net
