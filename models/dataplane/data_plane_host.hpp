#pragma once
// One Bluesky AppView data-plane host as it stood in April 2026 (domain.md §1): a Go process
// serving RPCs, a memcached on 127.0.0.1:11211 in front of Scylla, the kernel's TCP stack
// (whose TIME_WAIT sockets outlive the process), a log pipe, and errgroup-bounded handlers —
// except GetPostRecord, which had no SetLimit. The handler reads like the Go it stands for:
//
//   var group errgroup.Group                       // errgroup::Group group(...)
//   group.SetLimit(limit)                          // only if limit >= 0
//   for _, uri := range uris {
//     group.Go(func() error { return s.fetchPost(ctx, uri) })
//   }
//   group.Wait()
//
// and fetchPost: memcache Get → on miss (or error) Scylla → memcache Set, logging every error.
// Nothing in here produces the outage by script: ports run out because surplus connections
// close into TIME_WAIT; threads grow because logging blocks in write(2); the process dies
// because RSS crosses the container limit; a restart fails because TIME_WAIT outlives it.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/goruntime/errgroup.hpp"
#include "models/dataplane/config.hpp"
#include "models/dataplane/fd_limit.hpp"
#include "models/dataplane/scylla_pool.hpp"
#include "models/dataplane/scylla_share.hpp"
#include "models/goruntime/go_process.hpp"
#include "models/logsink/log_sink.hpp"
#include "models/logsink/logger.hpp"
#include "models/memcached/client.hpp"
#include "models/memcached/server.hpp"
#include "models/net/dialer.hpp"
#include "models/net/socket_table.hpp"

namespace skysim::dataplane {

// Which posts a batch asks for (see DataPlaneConfig::hot_posts / cold_posts).
enum class PostMix { kHot, kCold };

// How one RPC ended, as the caller sees it.
struct RpcResult {
  bool ok = true;
  std::string error;  // "" or a short reason: "unavailable", "crashed", "batch_too_large"
};
using RpcDone = std::function<void(const RpcResult&)>;
// Who asked, for the RPC's slice in a trace (sim/trace.hpp); not used otherwise.
struct RpcTag {
  std::string client;
  std::string endpoint;
};

// Something worth a line in the replay's "phases": the first bind error, a crash, a restart,
// a thread surge, an operator's change.
struct HostEvent {
  sim::Time at = 0;
  std::string what;
};

struct DataPlaneStats {
  std::uint64_t rpcs = 0;
  std::uint64_t rpcs_ok = 0;
  std::uint64_t rpcs_unavailable = 0;  // the process was down when the RPC arrived
  std::uint64_t rpcs_crashed = 0;      // the process died while serving it
  std::uint64_t rpcs_rejected = 0;     // batch cap
  std::uint64_t uris = 0;
  std::uint64_t cache_hits = 0;
  std::uint64_t cache_errors = 0;      // get or set failed (not a miss)
  std::uint64_t bind_errors = 0;       // dial failed with EADDRINUSE / EADDRNOTAVAIL
  std::uint64_t scylla_reads = 0;
  std::uint64_t scylla_errors = 0;     // no Scylla connection to read on (gocql ErrNoConnections)
  std::string last_bind_error;         // Go's text of the last one
  sim::Time first_bind_error_at = -1;
};

class DataPlaneHost {
 public:
  DataPlaneHost(sim::Simulation& sim, DataPlaneConfig cfg);
  ~DataPlaneHost();
  DataPlaneHost(const DataPlaneHost&) = delete;
  DataPlaneHost& operator=(const DataPlaneHost&) = delete;

  // GetPostRecord(uris): one handler goroutine fanning out one goroutine per URI.
  void get_post_record(std::int64_t uris, PostMix mix, RpcDone done, RpcTag tag = {});
  // Any other endpoint: small batches under errgroup.SetLimit(handler_limit).
  void small_rpc(std::int64_t uris, RpcDone done, RpcTag tag = {});

  // Timeline knobs (each what an engineer changed, or could have).
  void set_get_post_record_limit(std::int64_t limit);
  void set_handler_limit(std::int64_t limit) { cfg_.handler_limit = limit; }
  void set_max_batch_uris(std::int64_t n) { cfg_.max_batch_uris = n; }
  void set_dialer(DialerPolicy p);
  void set_log_policy(logsink::LogPolicy p);
  // Applies to connections made from now on; the running process keeps its pool.
  void set_max_idle_conns(int n) { cfg_.cache_client.max_idle_conns = n; }
  void kill() { go_.kill(goruntime::CrashReason::kExternal); }
  // Fault hooks (fuzz; none is a deploy). The container memory limit (bytes, 0 = none) is
  // re-checked at once: RSS above it is an OOM kill, the same path as the April deaths.
  void set_memory_limit(std::int64_t bytes);
  // The local memcached goes down (true) and comes back empty (false): a restart whose length
  // is the window. Dials are refused meanwhile; pooled connections of the old server read EOF
  // on their next use and are redialled.
  void set_cache_down(bool down);
  // A stop-the-world of the Go process for as long as it is set (a GC pause of that length).
  void set_gc_paused(bool paused) { go_.set_world_stopped(paused); }
  // The log collector stops reading the pipe (true) and resumes (false): writers block once
  // the pipe is full and are released, in order, as it drains again.
  void set_log_stalled(bool stalled);
  // Every memcached request takes `d` longer at the server (0 = none).
  void set_cache_slowdown(sim::Duration d) { cache_.set_extra_service_time(d); }
  // Each SYN to the local memcached is lost with probability p: the dial times out (its own
  // named stream, made on first use so runs without the fault draw nothing new).
  void set_cache_syn_loss(double p);
  // Reads the pool sends to the first `nodes` Scylla nodes take `factor` times longer
  // (a slow node; 0 nodes or factor 1 = none).
  void set_scylla_slow(std::int64_t nodes, double factor) {
    slow_nodes_ = nodes;
    slow_factor_ = factor;
  }
  // RLIMIT_NOFILE of the process (0 = none): dials beyond it fail with EMFILE (fd_limit.hpp).
  void set_fd_limit(std::int64_t n) { fd_limit_.limit = n; }
  std::uint64_t emfile_errors() const { return fd_limit_.emfile; }
  std::uint64_t cache_restarts() const { return cache_restarts_; }
  // Rolls out a new build (what the band-aid and the fix were): the process is replaced at
  // once; the kernel's TIME_WAIT sockets and the memcached server stay.
  void deploy(const std::string& what);

  const DataPlaneConfig& config() const { return cfg_; }
  goruntime::GoProcess& go() { return go_; }
  net::NetNamespace& kernel() { return ns_; }
  memcached::Server& cache_server() { return cache_; }
  memcached::Client& cache_client() { return *client_; }
  logsink::LogSink& log_sink() { return sink_; }
  logsink::Logger& logger() { return logger_; }
  ScyllaShare& scylla() { return scylla_; }
  const ScyllaPool& scylla_pool() const { return scylla_pool_; }
  const DataPlaneStats& stats() const { return stats_; }
  const std::vector<HostEvent>& events() const { return events_; }
  void note(std::string what) { events_.push_back(HostEvent{sim_.now(), std::move(what)}); }
  std::int64_t rpcs_in_flight() const { return in_flight_; }
  // Highest OS-thread count seen so far by the 10-second watch, across restarts.
  std::int64_t peak_threads() const { return threads_peak_; }
  // Seconds of uptime before each process death (OOM kill or thread exhaustion), in order.
  const std::vector<double>& uptimes_before_death() const { return uptimes_; }

 private:
  class Call;
  // Every 10 simulated seconds: notes the first thread surge and each new thread peak decade.
  struct ThreadWatch final : sim::Handler {
    DataPlaneHost* host = nullptr;
    void on_event(sim::Simulation& sim) override;
  };
  sim::Task<> serve_batch(std::shared_ptr<Call> call, std::int64_t uris, PostMix mix,
                          std::int64_t limit, RpcTag tag);
  // A fetchPost goroutine: `g.Go(func() error { return fetchPost(uri) })` with x/sync's wrapper
  // in the goroutine's own frame (a batch starts one per URI, 15-20k at once). By post id: the
  // key is made inside.
  sim::Process fetch_post(std::uint64_t incarnation, errgroup::Member joined, std::uint64_t post);
  // What starts it once the group has a slot.
  struct StartFetch {
    DataPlaneHost* host;
    std::uint64_t post;
    void operator()(errgroup::Member member) const;
  };
  std::uint64_t pick_post(PostMix mix);
  void note_cache_error(const memcached::McResult& r);
  void build_client();
  net::Dialer& current_dialer();

  sim::Simulation& sim_;
  DataPlaneConfig cfg_;
  net::NetNamespace ns_;
  memcached::Server cache_;
  goruntime::GoProcess go_;
  logsink::LogSink sink_;
  logsink::Logger logger_;
  ScyllaShare scylla_;
  ScyllaPool scylla_pool_;
  sim::Rng& keys_rng_;
  net::FixedSourceDialer fixed_dialer_;
  net::RandomLoopbackDialer random_dialer_;
  net::DefaultDialer default_dialer_;
  std::unique_ptr<memcached::Client> client_;
  FdLimit fd_limit_;
  FdLimitedDialer cache_fd_dialer_{fd_limit_};   // over current_dialer()'s choice
  FdLimitedDialer scylla_fd_dialer_{fd_limit_};  // over default_dialer_ (gocql's)
  // Clients of dead incarnations: frames of cancelled goroutines may still name them.
  std::vector<std::unique_ptr<memcached::Client>> dead_clients_;
  std::int64_t in_flight_ = 0;
  DataPlaneStats stats_;
  std::vector<HostEvent> events_;
  ThreadWatch thread_watch_;
  std::int64_t threads_baseline_ = 0;
  std::int64_t threads_noted_ = 0;
  std::int64_t threads_peak_ = 0;
  sim::Time up_since_ = 0;
  bool last_death_was_deploy_ = false;  // a deploy restarts at once, outside any back-off
  std::vector<double> uptimes_;
  std::uint64_t cache_restarts_ = 0;  // memcached came back after set_cache_down(true)
  std::int64_t slow_nodes_ = 0;
  double slow_factor_ = 1.0;
};

}  // namespace skysim::dataplane
