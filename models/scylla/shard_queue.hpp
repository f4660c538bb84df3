#pragma once
// One Scylla shard (a core running one Seastar reactor, domain.md §7.1) as a single FIFO
// server. First-come-first-served with known service times needs no event per request:
// Lindley's recursion (start = max(arrival, busy_until)) gives each request's completion the
// moment it arrives. Background traffic (the rest of the fleet's timeline writes) is a Poisson
// stream generated lazily, only up to the arrival instant of the next foreground request, so
// a shard nobody touches costs nothing and the order of work on a shard is exact.
#include <cstdint>
#include <vector>

#include "sim/time.hpp"

namespace scylla {

class ShardQueue {
 public:
  // Admits `service` of work arriving at `arrival` (>= every earlier arrival); returns when it
  // completes.
  sim::Time admit(sim::Time arrival, sim::Duration service) {
    const sim::Time start = arrival > busy_until_ ? arrival : busy_until_;
    idle_ns_ += start - busy_until_;  // the server sat idle until this arrival
    out_of_order_ = out_of_order_ || arrival < last_arrival_;
    last_arrival_ = arrival;
    busy_until_ = start + service;
    busy_ns_ += service;
    ++ops_;
    return busy_until_;
  }

  sim::Time busy_until() const { return busy_until_; }
  // Backlog a request arriving at `t` would wait behind.
  sim::Duration backlog_at(sim::Time t) const { return busy_until_ > t ? busy_until_ - t : 0; }
  double busy_ns() const { return busy_ns_; }
  std::uint64_t ops() const { return ops_; }
  // Work conservation (Lindley): the server is busy until exactly its idle time plus every
  // service admitted, so no admitted work was lost or invented; and arrivals came in order.
  // "" or what is off (scylla/cluster_check.cpp checks every shard).
  const char* conservation_error() const {
    if (out_of_order_) return "an arrival earlier than the one before it";
    if (static_cast<double>(busy_until_) != static_cast<double>(idle_ns_) + busy_ns_) {
      return "busy_until != idle time + admitted work";
    }
    return "";
  }

  // Lazy background state, driven by ScyllaCluster.
  sim::Time next_background = sim::kTimeMax;

 private:
  sim::Time busy_until_ = 0;
  double busy_ns_ = 0;
  std::uint64_t ops_ = 0;
  sim::Time idle_ns_ = 0;
  sim::Time last_arrival_ = 0;
  bool out_of_order_ = false;
};

}  // namespace scylla
