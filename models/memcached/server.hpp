#pragma once
// A memcached server process: worker threads serving requests in arrival order, an item LRU,
// a connection limit. The server side of each loopback connection is not put in the client's
// socket table: it uses port 11211 (outside the ephemeral range) and, being the passive
// closer, never holds TIME_WAIT (domain.md §2.2).
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/goruntime/host_cpu.hpp"
#include "models/memcached/item_store.hpp"
#include "models/memcached/protocol.hpp"
#include "models/net/address.hpp"
#include "sim/process.hpp"
#include "sim/simulation.hpp"

namespace skysim::memcached {

struct ServerConfig {
  // assumption: 1M items; the post-mortem gives no cache size (domain.md §1.4).
  std::size_t capacity_items = 1'000'000;
  // assumption: 5 us of worker time per get/set — memcached serves on the order of 100-200k
  // small ops/s per worker thread; loopback RTT is the client's parameter.
  sim::Duration service_time = 5 * sim::kMicrosecond;
  // memcached -t default: 4 worker threads (memcached --help).
  int worker_threads = 4;
  // memcached -c default: 1024 connections (memcached --help). Beyond it, with maxconns_fast
  // (on by default since 1.5), a new connection gets "ERROR Too many open connections" and the
  // server closes it. The April replay must set this above the storm (the outage's TIME_WAIT
  // was on the client, so the server accepted those connections).
  int max_connections = 1024;
  // memcached -b: the listen(2) backlog, default 1024 (memcached --help); the kernel caps it at
  // net.core.somaxconn (default 4096 since Linux 5.4). Handshakes complete in the kernel into
  // the accept queue whether or not memcached calls accept(); a full queue drops SYNs
  // (net::accept_queue_capacity). assumption: memcached's accept loop keeps up unless the
  // process is stalled, so the queue only fills while it is.
  int listen_backlog = 1024;
  int somaxconn = 4096;

  void validate() const;  // throws std::invalid_argument naming the field
};

struct ServerStats {
  std::uint64_t gets = 0;
  std::uint64_t get_hits = 0;
  std::uint64_t get_misses = 0;
  std::uint64_t sets = 0;
  std::uint64_t evictions = 0;
  std::uint64_t curr_connections = 0;
  std::uint64_t total_connections = 0;
  std::uint64_t rejected_connections = 0;
  std::uint64_t queued_max = 0;  // deepest the request queue got
  std::uint64_t listen_overflows = 0;  // SYNs dropped on a full accept queue (ListenOverflows)
  std::uint64_t syns_lost = 0;         // SYNs dropped by the syn-loss fault
};

// One request in flight between a client and the server. Shared because either side may be
// gone first: the client stops waiting at its deadline, the server still finishes the work.
struct PendingOp {
  McOp op = McOp::kGet;
  std::string key;
  McItem item;
  McResult result;
  bool done = false;
  sim::Time reply_at = 0;         // when the reply reaches the client
  sim::Duration reply_delay = 0;  // one-way trip back
  sim::WakeToken waiter;          // cleared by the client when it stops waiting
};

class Server {
 public:
  Server(sim::Simulation& sim, net::Endpoint listen, ServerConfig config, std::string name);
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server();

  const net::Endpoint& address() const { return listen_; }
  const std::string& name() const { return name_; }

  // A handshake completed. False: over max_connections, the server will answer the first
  // request with an error and close (maxconns_fast).
  bool accept();
  // The client closed an accepted connection. Connections from before a restart (another
  // incarnation) died with the old process and are not counted.
  void disconnect(std::uint32_t incarnation);
  std::uint32_t incarnation() const { return incarnation_; }

  // Queue a request; the server wakes op->waiter at op->reply_at when done.
  void submit(std::shared_ptr<PendingOp> op);

  // On a machine it shares with other processes (scenarios/machine.hpp), a worker thread's
  // time per request is work on the machine's cores, which every process's runnable threads
  // share (HostCpu): it takes longer while they outnumber the cores, or waits for a core under
  // run to completion. A thread that slept in epoll_wait wakes for a request; one that goes
  // straight on to the next queued request keeps its core. Without it (a host of its own),
  // the worker has a core to itself and a request takes exactly its service time. Call before
  // the first request.
  void run_on(goruntime::HostCpu& cores) { cores_ = &cores; }

  // Faults. down: nothing listens (connect() refused; open connections read EOF).
  // stalled: the process is hung — SYNs and requests are not answered until it resumes.
  void set_down(bool down);
  void set_stalled(bool stalled);
  // slowness: every request takes this much longer on its worker (a slow host, a swapping
  // memcached); requests already in service keep their time. 0 = none.
  void set_extra_service_time(sim::Duration d) { extra_service_ = d; }
  // SYN loss: each SYN to the listen port is dropped with this probability (draws from `rng`,
  // which must outlive the server; nullptr with 0). The client's retransmission would come after
  // the initial RTO of 1 s, past its dial timeout.
  void set_syn_loss(double p, sim::Rng* rng) {
    syn_loss_ = p;
    syn_rng_ = rng;
  }
  // A SYN arrives: true if the kernel completes the handshake (a place in the accept queue),
  // false if it is dropped because the queue is full (the client retransmits after 1 s).
  bool admit_syn();
  std::uint32_t accept_queue() const { return unaccepted_; }
  bool down() const { return down_; }
  bool stalled() const { return stalled_; }

  // Hook for hot-key signalling: when set, replies for keys it returns true for carry
  // McResult::hot_key. Nothing else uses it yet.
  std::function<bool(std::string_view key)> hot_key_probe;

  const ServerStats& stats() const { return stats_; }
  std::size_t items() const { return store_.size(); }
  // What the process holds of memory: its items (LruItemStore::bytes; 0 while down).
  std::uint64_t rss_bytes() const { return down_ ? 0 : store_.bytes(); }
  // Called after a set that grew the items' memory (a machine's memory check).
  void set_memory_watch(std::function<void()> watch) { memory_watch_ = std::move(watch); }
  std::size_t queued() const { return queue_.size(); }
  const ServerConfig& config() const { return config_; }

 private:
  struct Worker final : sim::Handler {
    Server* server = nullptr;
    std::shared_ptr<PendingOp> op;
    void on_event(sim::Simulation&) override { server->finish(*this); }
  };
  void start(Worker& w, std::shared_ptr<PendingOp> op, goruntime::HostCpu::Arrival arrival);
  sim::Process on_core(Worker& w, sim::Duration work, goruntime::HostCpu::Arrival arrival);
  void finish(Worker& w);
  void execute(PendingOp& op);
  // Idle workers take queued requests; `continuing` (if any) has just finished one and goes on.
  void pump(const Worker* continuing = nullptr);

  sim::Simulation& sim_;
  net::Endpoint listen_;
  ServerConfig config_;
  std::string name_;
  LruItemStore store_;
  std::vector<std::unique_ptr<Worker>> workers_;
  goruntime::HostCpu* cores_ = nullptr;  // a shared machine's, or null: a core per worker
  sim::Kind request_kind_;
  std::function<void()> memory_watch_;
  std::vector<Worker*> idle_workers_;
  std::deque<std::shared_ptr<PendingOp>> queue_;
  ServerStats stats_;
  bool down_ = false;
  bool stalled_ = false;
  sim::Duration extra_service_ = 0;
  double syn_loss_ = 0;
  sim::Rng* syn_rng_ = nullptr;
  std::uint32_t unaccepted_ = 0;  // handshakes waiting for accept() while stalled
  std::uint32_t incarnation_ = 1;
};

}  // namespace skysim::memcached
