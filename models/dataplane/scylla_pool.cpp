#include "models/dataplane/scylla_pool.hpp"

#include <stdexcept>

namespace skysim::dataplane {

void ScyllaPoolConfig::validate() const {
  if (hosts < 1) throw std::invalid_argument("scylla_hosts must be >= 1");
  if (conns_per_host < 0) throw std::invalid_argument("scylla_conns must be >= 0");
  if (first_host.is_loopback()) throw std::invalid_argument("scylla hosts must not be loopback");
}

ScyllaPool::ScyllaPool(sim::Simulation& sim, net::NetNamespace& ns, sim::Rng& rng,
                       ScyllaPoolConfig cfg)
    : sim_(sim), ns_(ns), rng_(rng), cfg_(cfg) {
  cfg_.validate();
  for (int i = 0; i < cfg_.hosts; ++i) {
    hosts_.push_back(Host{net::Endpoint{net::Ipv4{cfg_.first_host.value + static_cast<std::uint32_t>(i)},
                                        cfg_.port},
                          {}, 0});
  }
}

void ScyllaPool::start(net::OwnerId owner) {
  owner_ = owner;
  for (Host& h : hosts_) {
    h.conns.clear();
    h.next_fill = 0;
    if (enabled()) fill(h);  // CreateSession fills every up host's pool
  }
}

void ScyllaPool::crash() {
  for (Host& h : hosts_) {
    for (net::SocketId s : h.conns) {
      if (ns_.is_open(s)) ns_.close(s, net::CloseMode::kActive);
    }
    h.conns.clear();
  }
}

std::size_t ScyllaPool::open_conns() const {
  std::size_t n = 0;
  for (const Host& h : hosts_) n += h.conns.size();
  return n;
}

void ScyllaPool::fill(Host& h) {
  while (static_cast<int>(h.conns.size()) < cfg_.conns_per_host) {
    ++dials_;
    net::DialOutcome d = dial_->dial(ns_, h.addr, owner_);
    if (!d.ok()) {
      // Not a Temporary error: no retry; the pool waits 31 ms plus a uniform
      // 0-99 ms draw (its own named stream) before the next fill.
      ++dial_errors_;
      h.next_fill = sim_.now() + (31 + rng_.uniform_int(0, 99)) * sim::kMillisecond;
      return;
    }
    ns_.established(d.socket);
    h.conns.push_back(d.socket);
  }
}

bool ScyllaPool::pick() {
  if (!enabled()) return true;
  const std::size_t first = next_host_;
  next_host_ = (next_host_ + 1) % hosts_.size();
  for (std::size_t k = 0; k < hosts_.size(); ++k) {
    Host& h = hosts_[(first + k) % hosts_.size()];
    if (static_cast<int>(h.conns.size()) < cfg_.conns_per_host && sim_.now() >= h.next_fill) {
      fill(h);  // Pick's `go pool.fill()`; the dial itself is synchronous here
    }
    if (!h.conns.empty()) {
      picked_ = (first + k) % hosts_.size();
      return true;
    }
  }
  ++no_connection_;
  return false;
}

}  // namespace skysim::dataplane
