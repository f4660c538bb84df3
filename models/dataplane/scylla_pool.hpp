#pragma once
// The data plane's connections to Scylla as gocql keeps them, so that they live in the host's
// socket table (issue 22 item 3): one hostConnPool per node, `conns_per_host` connections each
// (gocql ClusterConfig.NumConns, default 2), dialled by net.Dialer without a LocalAddr — the
// kernel picks the source port under connect()'s rule, so a bind()-made socket's TIME_WAIT on
// any address of the namespace takes that port away from them (docs/models/net.md).
// Read from apache/cassandra-gocql-driver connectionpool.go:
//   session init: every up host's pool is filled (policyConnPool.SetHosts / addHost -> fill).
//   hostConnPool.Pick: if connections are missing, `go pool.fill()`; with none, return nil and
//     the query tries the next host of its plan; no host with a connection fails the query
//     (ErrNoConnections, "gocql: no hosts available in the pool").
//   fill: one fill at a time per host; on a dial error fillingStopped(true) sleeps
//     31 ms plus a uniform 0-99 ms draw before another fill may start.
//   connect: a net.OpError that is not Temporary (EADDRNOTAVAIL is not) is not retried.
// Left out: the conviction policy's node-down handling and the session's ReconnectInterval
// (60 s) that follows a failed first connection, the control connection, and the handshake
// time (each dial completes at once; the read time is ScyllaShare's).
#include <cstdint>
#include <vector>

#include "models/net/dialer.hpp"
#include "models/net/socket_table.hpp"
#include "sim/rng.hpp"
#include "sim/simulation.hpp"

namespace skysim::dataplane {

struct ScyllaPoolConfig {
  int hosts = 3;           // assumption: three nodes (RF 3, the smallest usual cluster; §7.4)
  int conns_per_host = 2;  // gocql NumConns default; 0 = no sockets (the old stand-in)
  net::Ipv4 first_host = net::Ipv4::of(10, 2, 0, 1);  // assumption: any non-loopback peers
  std::uint16_t port = 9042;                           // CQL native port
  void validate() const;  // throws std::invalid_argument naming the field
};

class ScyllaPool {
 public:
  ScyllaPool(sim::Simulation& sim, net::NetNamespace& ns, sim::Rng& rng, ScyllaPoolConfig cfg);
  bool enabled() const { return cfg_.conns_per_host > 0; }
  // A new process: its session dials every host's pool at once (owned by `owner`); what fails
  // is dialled again by later reads.
  void start(net::OwnerId owner);
  // Dials go through `d` from now on (the host's fd limit wraps the default dialer).
  void set_dialer(net::Dialer& d) { dial_ = &d; }
  // The process died: the kernel closes its connections (active close: TIME_WAIT).
  void crash();
  // A read picks a connection along its host plan. False: no host has one (the query fails).
  bool pick();
  // The node (0..hosts-1) the last successful pick() sent its read to; 0 without sockets.
  std::size_t picked() const { return picked_; }

  std::uint64_t dials() const { return dials_; }
  std::uint64_t dial_errors() const { return dial_errors_; }
  std::uint64_t no_connection() const { return no_connection_; }
  std::size_t open_conns() const;

 private:
  struct Host {
    net::Endpoint addr;
    std::vector<net::SocketId> conns;
    sim::Time next_fill = 0;  // fillingStopped: no fill before this
  };
  void fill(Host& h);

  sim::Simulation& sim_;
  net::NetNamespace& ns_;
  sim::Rng& rng_;
  ScyllaPoolConfig cfg_;
  net::DefaultDialer dialer_;
  net::Dialer* dial_ = &dialer_;
  std::vector<Host> hosts_;
  net::OwnerId owner_ = 0;
  std::size_t picked_ = 0;
  std::size_t next_host_ = 0;  // the plan's first host rotates (round robin)
  std::uint64_t dials_ = 0;
  std::uint64_t dial_errors_ = 0;
  std::uint64_t no_connection_ = 0;
};

}  // namespace skysim::dataplane
