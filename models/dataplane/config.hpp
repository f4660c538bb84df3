#pragma once
// Parameters of one Bluesky AppView data-plane host (domain.md §1): the Go process, its local
// memcached, its kernel's TCP stack, its log pipe and its share of Scylla. Every default names
// its source or says "assumption:"; docs/models/dataplane.md lists them all.
#include <cstdint>
#include <string>

#include "models/dataplane/scylla_pool.hpp"
#include "models/goruntime/config.hpp"
#include "models/logsink/log_sink.hpp"
#include "models/logsink/logger.hpp"
#include "models/memcached/client.hpp"
#include "models/memcached/server.hpp"
#include "models/net/address.hpp"
#include "models/net/sysctl.hpp"
#include "sim/time.hpp"

namespace skysim::dataplane {

// How the memcached client picks its source address (domain.md §1.3, §1.7, §2.7).
enum class DialerPolicy {
  kFixedSource,     // net.Dialer{LocalAddr: 127.32.0.1}: bind-before-connect (as it was)
  kRandomLoopback,  // the Monday band-aid: a random 127.x.y.z per connection
  kDefault,         // no LocalAddr: the kernel picks, 4-tuple rules, tcp_tw_reuse applies
};
DialerPolicy parse_dialer_policy(std::string_view text);
const char* to_string(DialerPolicy p);

struct DataPlaneConfig {
  std::string name = "dataplane";  // stream and metric prefix, e.g. "east/dataplane/0"

  goruntime::GoConfig go;
  net::NetSysctl net;
  memcached::ServerConfig cache_server;
  memcached::ClientConfig cache_client;
  logsink::SinkConfig log_sink;
  logsink::LoggerConfig logger;

  DialerPolicy dialer = DialerPolicy::kFixedSource;
  net::Ipv4 fixed_source = net::Ipv4::of(127, 32, 0, 1);  // the laddr in §1.5's error text
  bool bind_address_no_port = false;                       // IP_BIND_ADDRESS_NO_PORT (§2.3)
  net::LoopbackSpread band_aid_spread;                     // 254 x 256 x 254 (§1.7)

  // errgroup limits: 50 in every handler but GetPostRecord, where SetLimit was missing (§1.4).
  std::int64_t get_post_record_limit = -1;  // -1 = no limit (the bug); the fix is 50
  std::int64_t handler_limit = 50;
  // What-if: reject a GetPostRecord batch above this many URIs (0 = no cap, as it was).
  std::int64_t max_batch_uris = 0;

  // assumption: decoding a post record and building the reply costs ~20 µs of Go CPU per URI.
  sim::Duration cpu_per_uri = 20 * sim::kMicrosecond;
  // assumption: ~4 KiB of garbage per URI (protobuf/JSON decode, the reply) and 1 KiB live
  // while the URI is in flight.
  std::int64_t garbage_per_uri_bytes = 4 * 1024;
  std::int64_t live_per_uri_bytes = 1024;
  // assumption: long-lived heap of the process (in-memory caches, connection state); the GC
  // goal is computed from it. Multiplied by the scenario scale.
  std::int64_t baseline_live_heap_bytes = 512LL * 1024 * 1024;

  // The host's share of the Scylla cluster (domain.md §7; "simple latency-and-capacity model"):
  // at most `scylla_concurrency` reads in flight, each lasting a lognormal time.
  int scylla_concurrency = 256;  // assumption: per-host share of the cluster's read capacity
  sim::Duration scylla_read_median = 600 * sim::kMicrosecond;  // §7.6 (write avg; reads assumed alike)
  sim::Duration scylla_read_p99 = 15 * sim::kMillisecond;      // §7.6 P99 "up to ~15 ms"
  // The driver's connections to the nodes, in this host's socket table (gocql's pool).
  ScyllaPoolConfig scylla_pool;

  // Which posts a request asks for. Normal users read recent, popular posts: a Zipf-like
  // (Pareto-rank) choice among `hot_posts`; the batch client walks `cold_posts` uniformly
  // (assumption: a backfill, so mostly cache misses).
  std::uint64_t hot_posts = 200'000;
  double hot_pareto_shape = 1.2;  // assumption
  std::uint64_t cold_posts = 50'000'000;

  void validate() const;  // throws std::invalid_argument naming the field
};

}  // namespace skysim::dataplane
