#pragma once
// A memcached client that behaves like gomemcache's memcache.Client (domain.md §5), usable
// from simulated goroutines:
//
//   sim::Task<void> get_post(memcached::Client& mc, std::string uri) {
//     McResult r = co_await mc.get(uri);
//     if (r.status == McStatus::kCacheMiss) { ... read Scylla, then co_await mc.set(uri, item); }
//   }
//
// Per server address, a LIFO idle pool capped at max_idle_conns. An op takes an idle
// connection or dials a new one (no cap on open connections, no waiting); afterwards the
// connection goes back to the pool if there is room, else the client closes it — the client is
// the active closer, so every surplus connection leaves a TIME_WAIT socket in the client's
// network namespace. A non-resumable error (timeout, I/O) closes the connection too.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/memcached/idle_pool.hpp"
#include "models/memcached/protocol.hpp"
#include "models/memcached/server.hpp"
#include "models/net/dialer.hpp"
#include "models/net/socket_table.hpp"
#include "sim/deadline_list.hpp"
#include "sim/process.hpp"

namespace skysim::memcached {

struct ClientConfig {
  // gomemcache DefaultMaxIdleConns = 2 (domain.md §5); the data plane used 1000 (§1.4).
  // gomemcache maps values < 1 to 2; here they are refused so nothing is silently defaulted.
  int max_idle_conns = 2;
  // gomemcache DefaultTimeout = 500 ms: read/write deadline and dial timeout (domain.md §5).
  sim::Duration timeout = 500 * sim::kMillisecond;
  // assumption: 50 us loopback round trip through two socket stacks ("tens of us", §5).
  sim::Duration loopback_rtt = 50 * sim::kMicrosecond;
  // What if the client set SO_LINGER 0: surplus closes send RST and leave no TIME_WAIT (§2.5).
  bool linger_zero = false;
  // Kernel time of the dial's port search per port examined (net::DialOutcome::ports_scanned).
  // assumption: ~70 ns per port — a bucket spin lock, a short chain walk and a conflict check,
  // mostly cache misses on a 28k-bucket walk — so a failed bind(ip, 0) on the default range
  // costs ~2 ms of kernel time. 0 = free (the client alone, in tests).
  sim::Duration port_scan_ns = 0;
  // Heap each open connection keeps: gomemcache's getConn wraps the net.Conn in
  // bufio.NewReadWriter(bufio.NewReader(nc), bufio.NewWriter(nc)), 4096 bytes each
  // (bufio.defaultBufSize), for as long as the connection is open, idle or in use. Charged
  // through the memory hook; 0 = not charged (the client alone, in tests).
  std::int64_t conn_buffer_bytes = 0;

  void validate() const;  // throws std::invalid_argument naming the field
};

struct ClientStats {
  std::uint64_t ops = 0;
  std::uint64_t dials = 0;
  std::uint64_t dial_errors = 0;
  std::uint64_t connect_timeouts = 0;
  std::uint64_t io_timeouts = 0;
  std::uint64_t idle_reused = 0;
  std::uint64_t closed_pool_full = 0;  // putFreeConn found the pool full
  std::uint64_t closed_on_error = 0;
  std::uint64_t hot_key_replies = 0;
};

// Runs the dial's kernel time as a blocking syscall of the calling goroutine (Go's
// entersyscall/exitsyscall around bind(2)): the owner passes its Go runtime here, so a slow
// port search strands an M the way the real one does. Without it the time is not charged.
using SyscallHook = std::function<sim::Task<>(sim::Duration)>;
// Told of heap the client's connections take (+) and give back (-): the owner's Go heap.
using MemoryHook = std::function<void(std::int64_t delta_bytes)>;

class Client {
 public:
  // `owner` is the process whose descriptors these are (net::NetNamespace::close_all on crash).
  Client(sim::Simulation& sim, net::NetNamespace& ns, net::Dialer& dialer,
         std::vector<Server*> servers, ClientConfig config, net::OwnerId owner);
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  sim::Task<McResult> get(std::string key);
  sim::Task<McResult> set(std::string key, McItem item);

  // The band-aid of domain.md §1.7 is exactly this: a different DialContext.
  void set_dialer(net::Dialer& dialer) { dialer_ = &dialer; }
  // Searches shorter than `shortest` are not charged (they could never lose their P).
  void set_syscall_hook(SyscallHook hook, sim::Duration shortest) {
    syscall_ = std::move(hook);
    syscall_shortest_ = std::max<sim::Duration>(1, shortest);
  }

  void set_memory_hook(MemoryHook hook) { memory_ = std::move(hook); }

  // The process died: the kernel closes every socket it held — idle and in use — as the
  // active closer, so they enter TIME_WAIT and stay after the process is gone. The client is
  // unusable afterwards; a restarted process builds a fresh Client (with a new owner id).
  void crash();
  // Graceful shutdown of the idle pools (Client.Close in newer gomemcache).
  void close_idle();

  std::size_t idle_conns(std::size_t server_index = 0) const;
  std::uint64_t open_conns() const { return open_conns_; }  // idle + in use + dialing
  const ClientStats& stats() const { return stats_; }
  // The pool's invariants (client_check.cpp): "" or the first breach.
  std::string check_pool() const;
  const ClientConfig& config() const { return config_; }
  bool crashed() const { return crashed_; }
  // gomemcache's ServerList.PickServer: one server, else crc32(key) % n.
  std::size_t pick_server(std::string_view key) const;

 private:
  struct ConnAttempt {
    bool ok = false;
    Conn conn;
    McResult error;
  };
  sim::Task<McResult> run(McOp op, std::string key, McItem item);
  // An idle connection if the pool has one (no coroutine frame: the common case).
  bool take_idle(std::uint32_t server, ConnAttempt& out);
  sim::Task<ConnAttempt> get_conn(std::uint32_t server);
  sim::Task<McResult> round_trip(const Conn& c, McOp op, const std::string& key, McItem item);
  // Request records, reused once nobody else holds them (one allocation per request was a
  // measurable share of the April run; the server may still hold one whose client timed out).
  std::shared_ptr<PendingOp> new_op();
  void recycle(std::shared_ptr<PendingOp> op);
  void cond_release(const Conn& c, const McResult& r);
  void close_conn(const Conn& c, net::CloseMode mode);
  void check_usable(const Conn* c) const;
  McResult failure(McStatus s, McOp op, std::uint32_t server) const;

  sim::Simulation& sim_;
  net::NetNamespace& ns_;
  net::Dialer* dialer_;
  SyscallHook syscall_;
  MemoryHook memory_;
  sim::Duration syscall_shortest_ = 1;
  std::vector<Server*> servers_;
  ClientConfig config_;
  net::OwnerId owner_;
  std::vector<IdlePool> pools_;
  // Per server: open accepted connections by server incarnation (idle or in use), so a crash
  // can tell each server how many connections it lost.
  std::vector<std::map<std::uint32_t, std::uint64_t>> accepted_;
  std::uint64_t open_conns_ = 0;
  std::uint32_t life_ = 1;
  bool crashed_ = false;
  ClientStats stats_;
  std::vector<std::shared_ptr<PendingOp>> spare_ops_;  // new_op(), recycle()
  // The requests' read deadlines (gomemcache's per-read timeout): one timer for all of them,
  // not a stale queue entry per request that got its reply (sim/deadline_list.hpp).
  sim::DeadlineList deadlines_;
};

}  // namespace skysim::memcached
