#pragma once
// The per-namespace knobs of the TCP stack that decide port exhaustion (domain.md §2).
#include <cstdint>

#include "models/net/address.hpp"
#include "sim/time.hpp"

namespace skysim::net {

struct NetSysctl {
  // net.ipv4.ip_local_port_range, default "32768 60999" = 28,232 ports (domain.md §2.1).
  std::uint16_t port_lo = 32768;
  std::uint16_t port_hi = 60999;
  // TCP_TIMEWAIT_LEN, a kernel compile-time constant of 60 s (domain.md §2.2). A parameter here
  // so scaled-down runs can shrink it with the port range.
  sim::Duration time_wait = 60 * sim::kSecond;
  // net.ipv4.tcp_tw_reuse: 0 off, 1 on, 2 loopback only; 2 is the default since 2018 (§2.4).
  int tw_reuse = 2;
  // net.ipv4.tcp_tw_reuse_delay, default 1000 ms (domain.md §2.4).
  sim::Duration tw_reuse_delay = sim::kSecond;
  // net.ipv4.tcp_max_tw_buckets; 0 = no cap. The kernel default is sized from the hash at boot
  // (machine-dependent, domain.md §2.2), far above what one port range can hold; hence off.
  std::uint64_t max_tw_buckets = 0;
  // Source address the routing table gives a non-loopback destination. assumption: any
  // non-loopback address; only its distinctness from 127.0.0.0/8 matters.
  Ipv4 host_ip = Ipv4::of(10, 0, 0, 1);

  std::uint32_t port_count() const { return std::uint32_t{port_hi} - port_lo + 1; }
  // Throws std::invalid_argument naming the offending knob.
  void validate() const;
};

// How many completed handshakes a listener's accept queue holds before the kernel drops SYNs:
// listen(2) caps the backlog at net.core.somaxconn, and sk_acceptq_is_full() is
// `sk_ack_backlog > sk_max_ack_backlog`, so one more than the backlog fits. Measured on Linux
// 6.18 (docs/models/net.md "Listen backlog"): listen(fd, 4) never accepted lets 5 connects
// complete; the 6th times out (SYN dropped, retransmit only after 1 s).
inline std::uint32_t accept_queue_capacity(int backlog, int somaxconn) {
  const int b = backlog < somaxconn ? backlog : somaxconn;
  return static_cast<std::uint32_t>(b < 0 ? 0 : b) + 1;
}

}  // namespace skysim::net
