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

  // Lazy background state, driven by ScyllaCluster.
  sim::Time next_background = sim::kTimeMax;

 private:
  sim::Time busy_until_ = 0;
  double busy_ns_ = 0;
  std::uint64_t ops_ = 0;
};

}  // namespace scylla
