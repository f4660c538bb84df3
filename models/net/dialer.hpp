#pragma once
// How a client picks its source address before dialing — the knob the April 2026 outage turned
// on (domain.md §1.3, §1.7, §2.7). A dialer is the synchronous socket part of Go's
// net.Dialer.DialContext: socket(), optional bind(), connect() up to the SYN. The handshake
// time is the caller's (the memcached client sleeps one loopback RTT, then calls
// NetNamespace::established).
#include <cstdint>
#include <string>

#include "models/net/socket_table.hpp"
#include "sim/rng.hpp"

namespace skysim::net {

class Dialer {
 public:
  virtual ~Dialer() = default;
  virtual DialOutcome dial(NetNamespace& ns, Endpoint remote, OwnerId owner) = 0;
  virtual std::string describe() const = 0;
  // Whether it passes a LocalAddr (Go then prints "laddr->raddr" in dial errors).
  virtual bool gives_local_address() const = 0;
};

// net.Dialer{} with no LocalAddr: connect() autobinds under the 4-tuple rule, so tcp_tw_reuse
// can recycle loopback TIME_WAIT tuples; exhaustion is `connect: cannot assign requested
// address`.
class DefaultDialer final : public Dialer {
 public:
  DialOutcome dial(NetNamespace& ns, Endpoint remote, OwnerId owner) override {
    return ns.connect(remote, owner);
  }
  std::string describe() const override { return "default (no bind)"; }
  bool gives_local_address() const override { return false; }
};

// net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}: bind(ip, 0) then connect() — the data plane's
// setup before the band-aid (127.32.0.1; domain.md §1.3). All destinations share the one IP's
// ports and TIME_WAIT blocks them for its full length; exhaustion is `bind: address already in
// use`. With bind_address_no_port (set through Dialer.Control in Go) the port is chosen at
// connect time and the 4-tuple rule applies instead (domain.md §2.3).
class FixedSourceDialer final : public Dialer {
 public:
  explicit FixedSourceDialer(Ipv4 ip, bool bind_address_no_port = false)
      : ip_(ip), no_port_(bind_address_no_port) {}
  DialOutcome dial(NetNamespace& ns, Endpoint remote, OwnerId owner) override {
    return ns.bind_connect(ip_, remote, owner, no_port_);
  }
  std::string describe() const override;
  bool gives_local_address() const override { return true; }

 private:
  Ipv4 ip_;
  bool no_port_;
};

// The band-aid (domain.md §1.7): each dial binds a random source IP
//   127.(1+rand[0,254)).(rand[0,256)).(1+rand[0,254))
// i.e. 254 x 256 x 254 = 16,516,096 addresses, each with its own port range. The octet counts
// are parameters so a test can use a handful of IPs; the first value of each octet is fixed
// as in the Go code (1, 0, 1).
struct LoopbackSpread {
  std::uint32_t second_octets = 254;  // 127.[1..254]
  std::uint32_t third_octets = 256;   // .[0..255]
  std::uint32_t fourth_octets = 254;  // .[1..254]

  std::uint64_t addresses() const {
    return std::uint64_t{second_octets} * third_octets * fourth_octets;
  }
  void validate() const;  // throws std::invalid_argument when an octet range is empty or too wide
};

class RandomLoopbackDialer final : public Dialer {
 public:
  // `rng` should be a named stream of the dialing process, e.g. "host/1/dataplane/dialer".
  RandomLoopbackDialer(sim::Rng& rng, LoopbackSpread spread = {});
  DialOutcome dial(NetNamespace& ns, Endpoint remote, OwnerId owner) override;
  std::string describe() const override;
  bool gives_local_address() const override { return true; }
  Ipv4 pick_source();

 private:
  sim::Rng& rng_;
  LoopbackSpread spread_;
};

}  // namespace skysim::net
