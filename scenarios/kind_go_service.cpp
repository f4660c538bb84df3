// The `go-service` kind: a Go process on a host of its own, whose handlers are the steps of
// the service's `program:` (scenarios/program.hpp) and whose clients reach other services of
// the scenario through the host's TCP stack (scenarios/service_client.hpp). Issue 26's first
// composable part: a new service, and a new outage, written in YAML alone.
//
// A request to a handler is a new goroutine, as net/http serves each request on its own:
//
//   func (s *Server) getPage(w http.ResponseWriter, r *http.Request) {
//     work()                                  // - cpu: {time: ...}
//     g := new(errgroup.Group); g.SetLimit(8)  // - errgroup: {tasks: 20, limit: 8, do: [...]}
//     for i := 0; i < 20; i++ { g.Go(func() error { return s.backend.Get(...) }) }
//     if err := g.Wait(); err != nil { http.Error(w, err.Error(), 500) }
//   }
#include <algorithm>
#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string_view>

#include "components/hotkey/hot_key_client_cache.hpp"
#include "components/uidalloc/allocator_config.hpp"
#include "models/fdb/interning_workload.hpp"
#include "models/fdb/kv_backend.hpp"
#include "models/fanout/delivery_book.hpp"
#include "models/fanout/hot_key_nodes.hpp"
#include "models/fanout/instance_filter.hpp"
#include "models/fanout/policies/policy.hpp"
#include "models/fanout/shard_queue.hpp"
#include "models/fdb/transaction.hpp"
#include "models/goruntime/errgroup.hpp"
#include "models/goruntime/go_process.hpp"
#include "models/logsink/log_sink.hpp"
#include "models/logsink/logger.hpp"
#include "models/memcached/client.hpp"
#include "models/net/dialer.hpp"
#include "models/net/fd_limit.hpp"
#include "models/net/socket_table.hpp"
#include "scenarios/fdb_service.hpp"
#include "scenarios/follow_graph_service.hpp"
#include "scenarios/go_runtime_params.hpp"
#include "scenarios/go_service_panels.hpp"
#include "scenarios/host_address.hpp"
#include "scenarios/hyper_detector_service.hpp"
#include "scenarios/interning_books.hpp"
#include "scenarios/machine.hpp"
#include "scenarios/memcached_service.hpp"
#include "scenarios/param_builder.hpp"
#include "scenarios/param_scaling.hpp"
#include "scenarios/scylla_service.hpp"
#include "scenarios/service_client.hpp"
#include "scenarios/thread_surge.hpp"
#include "scenarios/staleness_metrics.hpp"
#include "sim/on_unwind.hpp"
#include "sim/pool_allocator.hpp"
#include "sim/sync.hpp"
#include "sim/trace_span.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;

std::vector<sim::ParamSpec> go_service_params() {
  std::vector<sim::ParamSpec> out = {
      extensive(param("cores", ParamType::Count, "", "4",
                      "CPU cores of the host (assumption: a small service container)", 1, 4096)),
      extensive(param("gomaxprocs", ParamType::Count, "", "0",
                      "GOMAXPROCS; 0 = cores (Go's default)", 0, 4096)),
      extensive(param("gomemlimit", ParamType::Size, "bytes", "0", "GOMEMLIMIT; 0 = none", 0,
                      1e15)),
      extensive(settable(param("memory_limit", ParamType::Size, "bytes", "0",
                               "container memory limit: RSS above it is an OOM kill; 0 = none",
                               0, 1e15))),
      extensive(param("baseline_live_heap", ParamType::Size, "bytes", "64MiB",
                      "long-lived heap of the process (assumption)", 0, 1e15)),
      settable(param("gc_paused", ParamType::Bool, "", "false",
                     "fault hook (go-gc-pause): while true the world is stopped")),
      extensive(settable(param("fd_limit", ParamType::Int, "fds", "0",
                               "RLIMIT_NOFILE soft limit (fault hook fd-limit): a dial once the "
                               "process holds that many descriptors (its sockets + 7 baseline, "
                               "models/net/fd_limit.hpp) fails with EMFILE; 0 = none",
                               0, 1e9))),
      param("log_policy", ParamType::Enum, "", "every",
            "what a `log` step does: every (one write(2) per line), sampled (1 in 100), "
            "rate_limited (100 lines/s, burst 100) or count (a counter, no write); "
            "models/logsink",
            std::nullopt, std::nullopt, {"every", "sampled", "rate_limited", "count"}),
      param("log_line_bytes", ParamType::Size, "bytes", "330",
            "one JSON log record with its newline (assumption, domain.md §1.5)", 1, 1e9),
      extensive(param("log_drain", ParamType::Size, "bytes per second", "20MB",
                      "how fast the log collector reads the stderr pipe (assumption: a "
                      "container runtime's json-file driver on a busy node); 0 = infinitely fast",
                      0, 1e15)),
      param("log_pipe_capacity", ParamType::Size, "bytes", "64KiB",
            "the stderr pipe's capacity (Linux default: 16 pages)", 4096, 1e9),
      param("log_pipe_page", ParamType::Size, "bytes", "0",
            "Linux pipe buffer (one page, fs/pipe.c): room in a full log pipe comes a page at a "
            "time, so a blocked write waits for the reader to finish a page; 4KiB = Linux, as "
            "the testbed measures (docs/testbed.md); 0 = byte-granular room",
            0, 1e6),
      param("log_write_lock", ParamType::Bool, "", "true",
            "Go's internal/poll FD.Write holds the fd's write lock for the whole write(2), so "
            "waiting writers park as goroutines; false = each blocked write holds its own M"),
      settable(param("log_drain_stalled", ParamType::Bool, "", "false",
                     "fault hook (log-stall): the log collector stops reading")),
      settable(param("port_range_low", ParamType::Count, "", "32768",
                     "net.ipv4.ip_local_port_range, low end (Linux default). Settable: `sysctl "
                     "-w` during the run applies to the next port search; held ports stay held",
                     1, 65535)),
      settable(param("port_range_high", ParamType::Count, "", "60999",
                     "net.ipv4.ip_local_port_range, high end (Linux default). Settable, as "
                     "port_range_low. At `scale` the range keeps its low end and scale x its "
                     "length (scenarios/machine.hpp PortRangeSysctl)",
                     1, 65535)),
      param("time_wait", ParamType::Duration, "", "60s",
            "TIME_WAIT length: TCP_TIMEWAIT_LEN, a kernel constant (domain.md §2.2)", 1, 1e15),
      settable(param("tcp_tw_reuse", ParamType::Int, "", "2",
                     "net.ipv4.tcp_tw_reuse: 0 off, 1 on, 2 loopback only (the default since "
                     "Linux 4.19); a service's peers are on other hosts, so 2 reuses nothing. "
                     "Settable: `sysctl -w` during the run applies to the next connect()",
                     0, 2)),
  };
  // The Go runtime's and the scheduler's, shared with the dataplane kind (which scales its own).
  for (sim::ParamSpec& p : go_runtime_params("1KiB")) {
    // A search of the shrunken range takes as long as one of the whole range.
    if (p.name == "port_scan_cost") p = per_scaled_unit(std::move(p));
    out.push_back(std::move(p));
  }
  return out;
}

// The models' configurations from a host's parameters; each validate() throws
// std::invalid_argument naming the field, which check_config reports at validation.
// On a machine the cores are its shared pool: what pinned processes (a Scylla node's shards)
// leave, as runtime.NumCPU reads the process's CPU affinity.
goruntime::GoConfig go_config(const HostContext& ctx, const Machine* machine = nullptr) {
  goruntime::GoConfig g;
  g.name = ctx.path();
  g.cores = machine ? machine->shared_cores() : static_cast<int>(ctx.params.count("cores"));
  g.gomaxprocs = static_cast<int>(ctx.params.count("gomaxprocs"));
  apply_go_runtime_params(ctx.params, g);
  g.gomemlimit_bytes = ctx.params.size_bytes("gomemlimit");
  g.container_memory_limit_bytes = ctx.params.size_bytes("memory_limit");
  g.validate();
  return g;
}
logsink::SinkConfig sink_config(const HostContext& ctx) {
  logsink::SinkConfig c;
  c.pipe_capacity_bytes = ctx.params.size_bytes("log_pipe_capacity");
  c.drain_bytes_per_second = static_cast<double>(ctx.params.size_bytes("log_drain"));
  c.page_bytes = ctx.params.size_bytes("log_pipe_page");
  c.validate();
  return c;
}
logsink::LoggerConfig logger_config(const HostContext& ctx) {
  logsink::LoggerConfig c;
  c.policy = logsink::parse_log_policy(ctx.params.choice("log_policy"));
  c.line_bytes = ctx.params.size_bytes("log_line_bytes");
  c.serialize_writes = ctx.params.flag("log_write_lock");
  c.validate();
  return c;
}

// The label of a gomemcache error in call.errors and responses.
std::string_view memcache_error(memcached::McStatus st) {
  using memcached::McStatus;
  switch (st) {
    case McStatus::kOk: return "memcache_ok";
    case McStatus::kCacheMiss: return "memcache_miss";
    case McStatus::kMalformedKey: return "memcache_malformed_key";
    case McStatus::kNoServers: return "memcache_no_servers";
    case McStatus::kDialError: return "memcache_dial_error";
    case McStatus::kConnectTimeout: return "memcache_connect_timeout";
    case McStatus::kIoTimeout: return "memcache_io_timeout";
    case McStatus::kConnClosed: return "memcache_conn_closed";
    case McStatus::kServerError: return "memcache_server_error";
  }
  return "memcache_error";
}

// This host's copy of the program, its steps' and clients' values at `scale` (a pool, a key
// space: scenarios/param_scaling.hpp). A deploy edits the copy, scaling what it sets.
std::shared_ptr<Program> scaled_program(const Program& written, double scale) {
  auto p = std::make_shared<Program>(written);
  if (scale == 1.0) return p;
  static const std::vector<sim::ParamSpec> client_specs = client_params();
  for (ClientSpec& c : p->clients) c.params = scaled_values(client_specs, c.params, scale);
  std::function<void(std::vector<Step>&)> each = [&](std::vector<Step>& steps) {
    for (Step& st : steps) {
      for (const StepType& t : step_types()) {
        if (t.kind == st.kind) st.params = scaled_values(t.params, st.params, scale);
      }
      each(st.body);
    }
  };
  for (auto& [name, steps] : p->handlers) each(steps);
  return p;
}

constexpr std::uint16_t kServicePort = 8080;  // assumption: every service listens on one port
// A timeline SetParam whose name holds this is a deploy of the program (the loader's deploy()).
constexpr std::string_view kProgram = ".program.";

class GoService final : public Instance {
  // A gomemcache client and what it counted across the process's lives.
  struct MemcacheClient {
    std::string name;
    const ClientSpec* spec = nullptr;  // in program_, which a deploy edits
    std::vector<memcached::Server*> servers;
    net::Dialer* dialer = nullptr;
    memcached::ClientConfig config;
    std::unique_ptr<memcached::Client> client;
    std::vector<std::unique_ptr<memcached::Client>> dead;  // frames may still point at them
    memcached::ClientStats stats;  // of the clients before the current one
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::string first_error;  // Go's text of the first error other than a miss
    sim::Time first_error_at = 0;
    std::array<sim::Counter*, 16> errors{};  // call.errors by McStatus, made on first use
    void fold_stats() {
      const memcached::ClientStats& s = client->stats();
      stats.dials += s.dials;
      stats.dial_errors += s.dial_errors;
      stats.io_timeouts += s.io_timeouts;
    }
  };
  // An fdb client: the cluster the FoundationDB client library talks to.
  struct FdbClient {
    std::string name;
    FdbCluster* cluster = nullptr;
    sim::Histogram* intern_latency = nullptr;
  };
  // A graph client: the follow-graph store follower_pages walks.
  struct GraphClient {
    std::string name;
    const FollowGraphStore* store = nullptr;
  };
  // One lossy_filter step's state in this process: its high-follow cache and refresher, and
  // the stream of its per-page r.
  struct PageFilter {
    std::unique_ptr<fanout::InstanceFilter> filter;
    sim::Rng* page_r = nullptr;
  };
  struct FollowerPage;
  // What follower_pages counted, per class of follower (hyper: follows above the graph's
  // hyper_follows).
  struct Deliveries {
    std::uint64_t offered[2] = {0, 0};    // [ordinary, hyper]
    std::uint64_t delivered[2] = {0, 0};
    std::uint64_t list_writes = 0;     // on_read authors' posts: their recent-post list rows
    std::uint64_t reads = 0;           // read_set runs
    std::uint64_t read_partitions = 0;  // the partitions they named
    std::uint64_t read_rows = 0;        // and the rows those reads scan
    // Per user, for fanout.delivered-le-offered: made at the first page offered.
    std::unique_ptr<fanout::DeliveryBook> book;
    void offer(const FollowGraphStore& g, social::UserId u) {
      ++offered[g.hyper(u) ? 1 : 0];
      if (!book) book = std::make_unique<fanout::DeliveryBook>(g.graph->users());
      book->offer(u);
    }
    void deliver(const FollowGraphStore& g, social::UserId u) {
      ++delivered[g.hyper(u) ? 1 : 0];
      book->deliver(u);
    }
    // What an answered write to `state`'s item adds, read before the write is sent: the reply
    // comes back thousands of events later, when the request's state is out of the cache.
    struct Answer {
      signed char delivered_class = -1;  // -1: not a follower's timeline
      bool list_write = false;
      social::UserId follower = 0;
    };
    Answer answer_for(const FollowerPage& page, social::UserId item) const {
      if (!page.partitions) {
        return Answer{static_cast<signed char>(page.store->hyper(item)), false, item};
      }
      return Answer{-1, page.list_write, 0};
    }
    void answered(Answer a) {
      if (a.delivered_class >= 0) {
        ++delivered[a.delivered_class];
        book->deliver(a.follower);
      }
      if (a.list_write) ++list_writes;
    }
  };
  // One uid_alloc step's allocator (the Go code's package-level one: stateless but for its
  // random source) and the strings its requests carry: new ones, or repeats of earlier ones.
  struct Interner {
    Interner(sim::Simulation& sim, const std::string& stream, const sim::ParamValues& p)
        : rng(sim.stream(stream)),
          strings(sim.stream(stream + "/strings"), p.fraction("repeat_fraction")),
          allocator(fdb::make_uid_allocator(allocator_config(p), rng)) {}
    sim::Rng& rng;  // the allocator's draws and the transactions' (retry backoff, latencies)
    fdb::RequestStrings strings;
    std::unique_ptr<fdb::UidAllocator> allocator;
  };

 public:
  GoService(World& w, const HostContext& ctx)
      : Instance(ctx),
        sim_(w.sim()),
        // Its own copy: a deploy (a timeline change of a step or client) edits this host's build.
        program_(ctx.program ? scaled_program(*ctx.program, ctx.scale) : nullptr),
        machine_(ctx.machine.empty() ? nullptr : &w.machine(ctx.machine)),
        go_(w.sim(), go_config(ctx, machine_), machine_ ? &machine_->cpu() : nullptr),
        // A host of its own has the kernel a machine would: its own parameters of the same names.
        own_ns_(machine_ ? nullptr
                         : std::make_unique<net::NetNamespace>(
                               w.sim(), machine_net_sysctl(ctx.params, ctx.scale),
                               ctx.path() + "/netns")),
        own_port_range_(ctx.params, ctx.scale),
        ns_(machine_ ? machine_->ns() : *own_ns_),
        rng_(w.sim().stream("go-service/" + ctx.path())),
        pick_(w.sim().stream("go-service/" + ctx.path() + "/pick")),
        sink_(sink_config(ctx)),
        logger_(go_, sink_, logger_config(ctx)),
        baseline_(ctx.params.size_bytes("baseline_live_heap")),
        port_scan_ns_(port_scan_cost(ctx.params)),
        thread_surge_(go_.gomaxprocs()),
        metrics_(w.metrics()) {
    if (!program_) throw std::invalid_argument("go-service " + ctx.path() + " has no program");
    if (machine_) owner_base_ = machine_->place(go_);
    auto& m = w.metrics();
    const sim::Labels host = {{"host", path()}};
    m.gauge_fn("go.goroutines", host, [this] { return double(go_.goroutines()); });
    m.gauge_fn("go.up", host, [this] { return go_.alive() ? 1.0 : 0.0; });
    m.gauge_fn("go.threads", host, [this] { return double(go_.threads()); });
    m.gauge_fn("go.heap_live_bytes", host, [this] { return double(go_.heap_live_bytes()); });
    m.gauge_fn("go.rss_bytes", host, [this] { return double(go_.rss_bytes()); });
    m.gauge_fn("net.time_wait", host, [this] { return double(ns_.time_wait_count()); });
    m.gauge_fn("go.runnable_threads", host, [this] { return double(go_.runnable_threads()); });
    m.gauge_fn("go.gc_cpu_fraction", host, [this] { return go_.gc_cpu_fraction(); });
    m.gauge_fn("go.stw_peak_ns", host, [this] { return double(go_.peak_stw()); });
    m.gauge_fn("go.stw_last_ns", host, [this] { return double(go_.last_stw()); });
    m.gauge_fn("go.threads_peak", host, [this] {
      return double(std::max(thread_surge_.peak(), go_.threads()));
    });
    m.gauge_fn("go.runnable_threads_peak", host,
               [this] { return double(go_.runnable_threads_peak()); });
    // Median minutes a process stayed up before it died of itself (an OOM kill, thread
    // exhaustion; not a deploy or kubectl delete): the post-mortem's "~30 minutes"; 0 = none.
    m.gauge_fn("go.median_uptime_min", host, [this] {
      if (uptimes_s_.empty()) return 0.0;
      std::vector<double> u = uptimes_s_;
      std::nth_element(u.begin(), u.begin() + u.size() / 2, u.end());
      return u[u.size() / 2] / 60.0;
    });
    m.counter_fn("go.crashes", host, [this] { return double(go_.crashes()); });
    m.counter_fn("go.oom_kills", host, [this] { return double(go_.oom_kills()); });
    m.counter_fn("go.evictions", host, [this] { return double(go_.evictions()); });
    m.counter_fn("go.forced_stws", host, [this] { return double(go_.forced_stws()); });
    m.counter_fn("log.lines", host, [this] { return double(logger_.lines_written()); });
    m.counter_fn("log.blocked_writes", host, [this] { return double(sink_.blocked_writes()); });
    m.gauge_fn("log.writers_waiting", host, [this] { return double(logger_.writers_waiting()); });
    m.gauge_fn("go.ms_in_syscall", host, [this] { return double(go_.ms_in_syscall()); });
    m.gauge_fn("log.pipe_bytes", host,
               [this] { return double(sink_.backlog_bytes(sim_.now())); });
    for (const auto& [name, steps] : program_->handlers) {
      const sim::Labels hl = {{"host", path()}, {"handler", name}};
      auto& hm = handlers_[name] = HandlerMetrics{&m.histogram("handler.latency_ns", hl),
                                                  &m.counter("handler.ok", hl),
                                                  &m.counter("handler.failed", hl), {}};
      hm.name = handlers_.find(name)->first;  // the map's own key: it outlives a deploy
    }
    // Process-wide state of steps: a semaphore's units outlive a crash (every holder was
    // killed and gave its unit back), an interner's strings are the requests', not the process's.
    for_each_step(*program_, [&](const Step& s) {
      if (s.kind == StepKind::kSemaphore) {
        semaphores_.emplace(
            s.path, StepSemaphore{s.params.count("limit"),
                                  std::make_unique<sim::Semaphore>(s.params.count("limit"))});
      } else if (s.kind == StepKind::kUidAlloc) {
        interners_.try_emplace(s.path, sim_, "go-service/" + path() + "/" + s.path, s.params);
      }
    });
    go_.retain(baseline_);
    go_.on_thread_created([this] { thread_surge_.thread_created(sim_.now(), go_.threads()); });
    go_.on_crash([this](goruntime::CrashReason reason, const std::string& message) {
      thread_surge_.process_died();
      last_death_was_deploy_ = reason == goruntime::CrashReason::kDeploy;
      if (reason != goruntime::CrashReason::kDeploy && reason != goruntime::CrashReason::kExternal) {
        uptimes_s_.push_back(sim::to_seconds(sim_.now() - up_since_));
      }
      // The kernel closes every descriptor of the dead process: open connections go to
      // TIME_WAIT in this namespace and stay after it is gone (the gomemcache clients first:
      // they also tell their servers, and honour SO_LINGER 0).
      for (auto& mc : memcache_) {
        if (!mc.client) continue;
        mc.fold_stats();
        mc.client->crash();
        mc.dead.push_back(std::move(mc.client));
      }
      ns_.close_all(owner_);
      for (auto& c : clients_) {
#ifdef SKYSIM_PLANTED_BUGS
        // Planted for the fuzzer's self-test (docs/fuzzing.md, "Planted bugs"): a gocql client
        // outlives its process's death with its connections still counted, so the restarted
        // process's clients count more than it holds and go-service.sockets must fail.
        if (c.client->multiplexed()) continue;
#endif
        c.client->crash();
      }
      set_up(false);
      milestones_.push_back({sim_.now(), "process died: " + message});
    });
    go_.on_restart([this] {
      owner_ = owner_base_ + static_cast<net::OwnerId>(go_.incarnation());
      go_.retain(baseline_);
      set_up(go_.alive());
      if (!go_.alive()) return;
      up_since_ = sim_.now();
      if (deployed_) redeploy();
      for (auto& mc : memcache_) build_memcache_client(mc);
      for (auto& [where, cache] : hot_caches_) cache->clear();  // the old process's memory
      start_sessions();
      std::string waited;
      if (!last_death_was_deploy_ &&
          go_.config().restart_policy.kind == goruntime::RestartPolicyKind::kCrashLoopBackOff) {
        waited = " after a CrashLoopBackOff of " +
                 std::to_string(go_.last_restart_delay() / sim::kSecond) + " s";
      }
      milestones_.push_back({sim_.now(), "process restarted" + waited + "; " +
                                             std::to_string(ns_.time_wait_count()) +
                                             " sockets in TIME_WAIT"});
    });
    owner_ = owner_base_ + static_cast<net::OwnerId>(go_.incarnation());
    fd_limit_.open_sockets = [this] { return static_cast<std::int64_t>(ns_.open_sockets(owner_)); };
    if (ctx.params.integer("fd_limit") > 0) set("fd_limit", ctx.params.get("fd_limit"));
    if (ctx.params.flag("gc_paused")) go_.set_world_stopped(true);
    if (ctx.params.flag("log_drain_stalled")) sink_.set_stalled(true, sim_.now());
  }

  ~GoService() override = default;

  void start(World& w) override {
    world_ = &w;
    auto& m = w.metrics();
    for (const auto& spec : program_->clients) {
      if (spec.params.choice("driver") == "gomemcache") {
        start_memcache_client(w, spec);
        continue;
      }
      if (spec.params.choice("driver") == "graph") {
        const FollowGraphStore* store = follow_graph_of(target_hosts(w, spec).at(0));
        if (!store) throw std::logic_error(path() + ": client " + spec.name + " reaches no graph");
        graphs_.push_back({spec.name, store});
        continue;
      }
      if (spec.params.choice("driver") == "detector") {
        // The loader checked the target's kind; null is a detector whose flag is off.
        detectors_.push_back({spec.name, hyper_detector_of(target_hosts(w, spec).at(0))});
        continue;
      }
      if (spec.params.choice("driver") == "fdb") {
        FdbCluster* cluster = fdb_cluster_of(target_hosts(w, spec).at(0));
        if (!cluster) throw std::logic_error(path() + ": client " + spec.name + " reaches no fdb");
        fdb_.push_back(
            {spec.name, cluster,
             &m.histogram("uid.intern_latency_ns", {{"host", path()}, {"client", spec.name}})});
        continue;
      }
      std::vector<ServiceClient::Target> targets;
      for (Instance* h : target_hosts(w, spec)) {
        const net::Ipv4 ip = spec.params.flag("local") ? net::Ipv4::of(127, 0, 0, 1)
                                                       : host_address(w, h->path());
        targets.push_back({h, net::Endpoint{ip, kServicePort}});
      }
      auto client =
          std::make_unique<ServiceClient>(sim_, ns_, dialer_for(spec), context().service,
                                          std::move(targets), service_client_config(spec), pick_);
      client->set_port_search(
          port_scan_ns_, [this](sim::Duration d) { return go_.syscall_cpu(d); },
          go_.config().sysmon_tick_min);
      const sim::Labels cl = {{"host", path()}, {"client", spec.name}};
      ServiceClient* c = client.get();
      m.gauge_fn("client.open_conns", cl, [c] { return double(c->open_conns()); });
      m.gauge_fn("client.idle_conns", cl, [c] { return double(c->idle_conns()); });
      m.counter_fn("client.dials", cl, [c] { return double(c->stats().dials); });
      m.counter_fn("client.dial_errors", cl, [c] { return double(c->stats().dial_errors); });
      m.counter_fn("client.timeouts", cl, [c] { return double(c->stats().timeouts); });
      m.counter_fn("client.refused", cl, [c] { return double(c->stats().refused); });
      clients_.push_back({spec.name, &spec, std::move(client)});
    }
    build_page_filters(w);
    build_shard_queues(w);
    build_hot_caches(w);
    build_plans();
    check_item_partitions(w);
    start_sessions();
  }

  // A call's `key: item` names a partition the page steps chose: a follower's timeline, under
  // on_read also the recent-post lists past users, under split the parts past 2 x users. A
  // scylla service would wrap a larger key onto another partition, silently: refuse at start.
  void check_item_partitions(World& w) {
    std::uint64_t needed = 0;
    for_each_step(*program_, [&](const Step& s) {
      if (s.kind != StepKind::kFollowerPages && s.kind != StepKind::kReadSet) return;
      const StepPlan& p = plans_[s.slot];
      const std::uint64_t users = p.graph->graph->users();
      needed = std::max(needed, p.split ? std::uint64_t{p.split->partitions()}
                                : p.on_read_threshold > 0 ? 2 * users
                                                          : users);
    });
    if (needed == 0) return;
    for_each_step(*program_, [&](const Step& s) {
      if (s.kind != StepKind::kCall || !plans_[s.slot].item_key) return;
      const ClientSpec& spec = *program_->client(s.params.string("client"));
      for (Instance* h : target_hosts(w, spec)) {
        const scylla::ScyllaCluster* cluster = scylla_cluster_of(h);
        if (cluster && cluster->partitions() < needed) {
          throw std::invalid_argument(
              path() + ": the call at " + s.where + " writes or reads partitions up to " +
              std::to_string(needed - 1) + " (the follow graph's timelines, lists and split "
              "parts) but the scylla service '" + spec.target_service + "' holds " +
              std::to_string(cluster->partitions()) + ": set its partitions: to at least " +
              std::to_string(needed));
        }
      }
    });
  }

  // A gomemcache client to every host of a memcached service (crc32(key) % n picks one, as
  // gomemcache's ServerList does). Rebuilt after each restart: a dead process's client is
  // gone with its descriptors.
  // The hosts a client reaches: every host of its target, or with `local` the sidecar
  // beside this one (the same index).
  std::vector<Instance*> target_hosts(World& w, const ClientSpec& spec) {
    std::vector<Instance*> all = w.hosts(spec.target_datacenter, spec.target_service);
    if (!spec.params.flag("local")) return all;
    const auto i = static_cast<std::size_t>(context().host_index);
    if (i >= all.size()) {
      throw std::invalid_argument(path() + ": client " + spec.name + " is local but " +
                                  spec.target_service + " has no host " + std::to_string(i));
    }
    return {all[i]};
  }

  // The client's DialContext (models/net/dialer.hpp), made once per client.
  // A client's dialer, behind the process's open-file limit.
  net::Dialer& dialer_for(const ClientSpec& spec) {
    const std::string& kind = spec.params.choice("dialer");
    net::Dialer* source = &dialer_;
    if (kind == "fixed_source") {
      dialers_.push_back(std::make_unique<net::FixedSourceDialer>(
          net::Ipv4::parse(spec.params.string("source_ip")), spec.params.flag("bind_address_no_port")));
      source = dialers_.back().get();
    } else if (kind == "random_loopback") {
      dialers_.push_back(std::make_unique<net::RandomLoopbackDialer>(
          sim_.stream("go-service/" + path() + "/dialer/" + spec.name)));
      source = dialers_.back().get();
    }
    auto limited = std::make_unique<net::FdLimitedDialer>(fd_limit_);
    limited->over(*source);
    dialers_.push_back(std::move(limited));
    return *dialers_.back();
  }

  void start_memcache_client(World& w, const ClientSpec& spec) {
    MemcacheClient mc;
    mc.name = spec.name;
    mc.spec = &spec;
    mc.dialer = &dialer_for(spec);
    for (Instance* h : target_hosts(w, spec)) {
      mc.servers.push_back(memcached_server_of(h));
    }
    mc.config = memcache_config(spec);
    memcache_.push_back(std::move(mc));
    build_memcache_client(memcache_.back());
    const sim::Labels cl = {{"host", path()}, {"client", spec.name}};
    sim::MetricsRegistry& m = w.metrics();
    MemcacheClient* p = &memcache_.back();
    m.counter_fn("client.dials", cl, [p] {
      return double(p->stats.dials + (p->client ? p->client->stats().dials : 0));
    });
    m.counter_fn("client.dial_errors", cl, [p] {
      return double(p->stats.dial_errors + (p->client ? p->client->stats().dial_errors : 0));
    });
    m.counter_fn("client.timeouts", cl, [p] {
      return double(p->stats.io_timeouts + (p->client ? p->client->stats().io_timeouts : 0));
    });
    m.gauge_fn("client.open_conns", cl,
               [p] { return p->client ? double(p->client->open_conns()) : 0.0; });
    m.counter_fn("cache.hits", cl, [p] { return double(p->hits); });
    m.counter_fn("cache.misses", cl, [p] { return double(p->misses); });
  }

  memcached::ClientConfig memcache_config(const ClientSpec& spec) const {
    memcached::ClientConfig c;
    c.max_idle_conns = static_cast<int>(spec.params.count("max_idle"));
    // gomemcache's netTimeout(): Timeout 0 means DefaultTimeout (500 ms).
    c.timeout = spec.params.duration("timeout") > 0 ? spec.params.duration("timeout")
                                                    : 500 * sim::kMillisecond;
    c.loopback_rtt = spec.params.duration("rtt");
    c.linger_zero = spec.params.flag("linger_zero");
    c.port_scan_ns = port_scan_ns_;
    // bufio.NewReadWriter per connection: 4096-byte reader and writer (bufio.defaultBufSize).
    c.conn_buffer_bytes = 8 * 1024;
    c.validate();
    return c;
  }

  static ServiceClientConfig service_client_config(const ClientSpec& spec) {
    ServiceClientConfig cfg;
    cfg.max_idle = static_cast<std::size_t>(spec.params.count("max_idle"));
    cfg.timeout = spec.params.duration("timeout");
    cfg.rtt = spec.params.duration("rtt");
    cfg.linger_zero = spec.params.flag("linger_zero");
    cfg.multiplexed = spec.params.choice("driver") == "gocql";
    cfg.conns_per_host = static_cast<std::size_t>(spec.params.count("conns_per_host"));
    return cfg;
  }

  void build_memcache_client(MemcacheClient& mc) {
    if (mc.client) {
      mc.fold_stats();
      mc.client->crash();
      mc.dead.push_back(std::move(mc.client));
    }
    mc.client = std::make_unique<memcached::Client>(sim_, ns_, *mc.dialer, mc.servers,
                                                    mc.config, owner_);
    // A port search shorter than sysmon's shortest tick can never lose its P (and is not
    // worth two events); a longer one is a syscall the goroutine's M spends on a core.
    mc.client->set_syscall_hook([this](sim::Duration d) { return go_.syscall_cpu(d); },
                                go_.config().sysmon_tick_min);
    mc.client->set_memory_hook([this, inc = go_.incarnation()](std::int64_t delta) {
      if (go_.incarnation() != inc) return;
      if (delta > 0) {
        go_.alloc_retained_now(delta);
      } else {
        go_.release(-delta);
      }
    });
  }

  FdbClient& fdb_client(const std::string& name) {
    for (auto& c : fdb_) {
      if (c.name == name) return c;
    }
    throw std::logic_error("go-service " + path() + ": no fdb client " + name);
  }

  fanout::HyperFollowerDetector* detector_client(const std::string& name) {
    for (auto& d : detectors_) {
      if (d.name == name) return d.detector;
    }
    throw std::logic_error(path() + ": no detector client " + name);  // the loader checked
  }
  GraphClient& graph_client(const std::string& name) {
    for (auto& g : graphs_) {
      if (g.name == name) return g;
    }
    throw std::logic_error("go-service " + path() + ": no graph client " + name);
  }

  // Each lossy_filter's state, for the graph of the follower_pages it thins (at start and at a
  // deploy's restart: a new build reloads its cache from the store), and the fan-out metrics
  // when the program walks followers at all.
  void build_page_filters(World& w) {
    for (auto& [where, f] : page_filters_) {
      f.filter->stop();  // its refresher's pending event still points at it
      old_filters_.push_back(std::move(f.filter));
    }
    page_filters_.clear();
    bool walks = false;
    for_each_step(*program_, [&](const Step& pages) {
      if (pages.kind == StepKind::kReadSet) walks = true;
      if (pages.kind != StepKind::kFollowerPages) return;
      walks = true;
      const FollowGraphStore& store = *graph_client(pages.params.string("client")).store;
      for_each_step(pages.body, [&](const Step& s) {
        if (s.kind != StepKind::kLossyFilter) return;
        fanout::InstanceFilterConfig cfg;
        cfg.lossy = s.params.flag("enabled");
        cfg.reasonable_limit = static_cast<std::uint64_t>(s.params.count("reasonable_limit"));
        cfg.refresh = s.params.duration("refresh");
        cfg.redis_rtt = s.params.duration("redis_rtt");
        PageFilter f;
        f.filter = std::make_unique<fanout::InstanceFilter>(sim_, *store.graph, cfg,
                                                            store.follow_counts.get());
        // A growing graph (a fanout-fleet runs its growth, set up when the services were
        // built): every decision audited against the true counts.
        if (store.growth) f.filter->audit_with(*store.growth);
        f.filter->start();
        f.page_r = &sim_.stream("go-service/" + path() + "/" + s.path + "/page_r");
        page_filters_.emplace(s.path, std::move(f));
      });
    });
    const bool audited = std::any_of(page_filters_.begin(), page_filters_.end(),
                                     [](const auto& f) { return f.second.filter->audit(); });
    if (audited && !staleness_metrics_) {
      staleness_metrics_ = true;
      add_staleness_metrics(w.metrics(), path(), [this] {
        std::vector<const fanout::StalenessAudit*> out;
        for (const auto& [where, f] : page_filters_) out.push_back(f.filter->audit());
        for (const auto& old : old_filters_) out.push_back(old->audit());  // before a deploy
        return out;
      });
    }
    if (walks && !page_duration_) {
      page_duration_ = &w.metrics().histogram("fanout.page_duration_ns", {{"host", path()}});
      static constexpr const char* kClass[2] = {"ordinary", "hyper"};
      for (int c = 0; c < 2; ++c) {
        const sim::Labels cl = {{"class", kClass[c]}, {"host", path()}};
        w.metrics().counter_fn("fanout.offered", cl,
                               [this, c] { return double(deliveries_.offered[c]); });
        w.metrics().counter_fn("fanout.delivered", cl,
                               [this, c] { return double(deliveries_.delivered[c]); });
      }
      const sim::Labels host = {{"host", path()}};
      w.metrics().counter_fn("fanout.list_writes", host,
                             [this] { return double(deliveries_.list_writes); });
      w.metrics().counter_fn("fanout.reads", host, [this] { return double(deliveries_.reads); });
      w.metrics().counter_fn("fanout.read_partitions", host,
                             [this] { return double(deliveries_.read_partitions); });
      w.metrics().counter_fn("fanout.read_rows", host,
                             [this] { return double(deliveries_.read_rows); });
    }
  }

  // Each enabled shard_queue step's queue on the scylla cluster its client reaches (the loader
  // checked it is one), and the queue's metrics once.
  void build_shard_queues(World& w) {
    for (auto& [where, q] : shard_queues_) old_queues_.push_back(std::move(q));
    shard_queues_.clear();
    for_each_step(*program_, [&](const Step& s) {
      if (s.kind != StepKind::kShardQueue || !s.params.flag("enabled")) return;
      const ClientSpec& spec = *program_->client(s.params.string("client"));
      scylla::ScyllaCluster* cluster = scylla_cluster_of(target_hosts(w, spec).at(0));
      if (!cluster) throw std::logic_error(path() + ": shard_queue reaches no scylla cluster");
      fanout::ShardQueueConfig cfg;
      cfg.rate_per_s = s.params.rate_per_s("rate");
      cfg.in_flight = static_cast<std::uint32_t>(s.params.count("in_flight"));
      shard_queues_.emplace(s.path, std::make_unique<fanout::ShardQueue>(sim_, *cluster, cfg));
    });
    if (shard_queues_.empty() || queued_write_latency_) return;
    const sim::Labels host = {{"host", path()}};
    queued_write_latency_ = &w.metrics().histogram("fanout.queued_write_latency_ns", host);
    // Over every queue the program has (one in any program so far: a post walks one page loop).
    w.metrics().gauge_fn("fanout.queue_delay_p99_ns", host, [this] {
      double worst = 0;
      for (const auto& [where, q] : shard_queues_)
        worst = std::max(worst, double(q->delay().quantile(0.99)));
      return worst;
    });
    w.metrics().gauge_fn("fanout.queue_delay_mean_ns", host, [this] {
      return shard_queues_.empty() ? 0.0 : shard_queues_.begin()->second->delay().mean();
    });
    w.metrics().gauge_fn("fanout.queue_max_depth", host, [this] {
      std::uint64_t deepest = 0;
      for (const auto& [where, q] : shard_queues_) deepest = std::max(deepest, q->max_depth());
      return double(deepest);
    });
  }

  // Each call's hot-key cache (hot_cache > 0), checked against what it reads: a keyed read
  // through a client to a scylla service whose nodes run the hot-key detectors (a cache no
  // reply ever marks hot would never serve anything: a wiring error, not a setting).
  struct HotCache {
    hotkey::HotKeyClientCache<std::uint32_t> cache;
    fanout::HotKeyNodes* nodes;  // the scylla service's, for the stale-read count
    std::uint32_t partitions;    // the key's partition: key mod partitions, as the service's
    void clear() { cache = hotkey::HotKeyClientCache<std::uint32_t>(cache.ttl_ns()); }
  };
  void build_hot_caches(World& w) {
    for (auto& [where, c] : hot_caches_) old_hot_caches_.push_back(std::move(c));
    hot_caches_.clear();
    for_each_step(*program_, [&](const Step& s) {
      if (s.kind != StepKind::kCall || s.params.duration("hot_cache") == 0) return;
      const std::string at = "hot_cache at " + s.where + ": ";
      if (s.params.choice("key") == "none") {
        throw std::invalid_argument(at + "a cached read names its key (key: item, cache or "
                                         "uniform); with key: none the service picks one");
      }
      if (s.params.string("endpoint") != "read") {
        throw std::invalid_argument(at + "the cache keeps replies to reads (endpoint: read), "
                                         "not '" + s.params.string("endpoint") + "'");
      }
      const ClientSpec& spec = *program_->client(s.params.string("client"));
      Instance* target = target_hosts(w, spec).at(0);
      fanout::HotKeyNodes* nodes = scylla_hot_keys_of(target);
      if (nodes == nullptr) {
        throw std::invalid_argument(
            at + "the client's target '" + spec.target_service + "' " +
            (scylla_cluster_of(target) ? "runs no hot-key detectors (set its hot_keys: true)"
                                       : "is not a scylla service"));
      }
      hot_caches_.emplace(
          s.path, std::make_unique<HotCache>(HotCache{
                      hotkey::HotKeyClientCache<std::uint32_t>(s.params.duration("hot_cache")),
                      nodes, scylla_cluster_of(target)->partitions()}));
    });
  }

  MemcacheClient& memcache(const std::string& name) {
    for (auto& c : memcache_) {
      if (c.name == name) return c;
    }
    throw std::logic_error("go-service " + path() + ": no gomemcache client " + name);
  }

  void handle(Request r) override {
    if (!up() || !go_.alive()) {
      r.complete({false, "crashed"});
      return;
    }
    auto it = program_->handlers.find(r.endpoint);
    if (it == program_->handlers.end()) {
      r.complete({false, "no_handler"});  // the loader checks endpoints; a bug if reached
      return;
    }
    // The request's state is made here, so the goroutine's frame keeps only how to answer.
    auto state = sim::make_pooled<RequestState>();
    state->size_bytes = r.size_bytes;
    state->client = std::move(r.client);
    go_.go_process(serve(go_.incarnation(), std::move(state), std::move(r.done),
                         handlers_.at(it->first), it->second));
  }

  void set(std::string_view name, const sim::ParamValue& v) override {
    if (name.find(kProgram) != std::string_view::npos) {
      deploy(name, v);
      return;
    }
    if (name == "memory_limit") {
      go_.set_container_memory_limit(v.integer);
      return;
    }
    if (name == "gc_paused") {
      go_.set_world_stopped(v.integer != 0);
      return;
    }
    if (name == "fd_limit") {
      if (!emfile_counter_) {
        emfile_counter_ = true;  // named on first use: a new series would move every run's metrics
        metrics_.counter_fn("net.emfile", {{"host", path()}},
                            [this] { return double(fd_limit_.emfile); });
      }
      fd_limit_.limit = v.integer;
      return;
    }
    if (name == "log_drain_stalled") {
      sink_.set_stalled(v.integer != 0, sim_.now());
      return;
    }
    if (name == "tcp_tw_reuse") {  // the loader let it through only for a host of its own
      ns_.set_tw_reuse(static_cast<int>(v.integer));
      return;
    }
    if (name == "port_range_low" || name == "port_range_high") {  // a host of its own, too
      own_port_range_.set(ns_, name, v);
      return;
    }
    Instance::set(name, v);
  }

  void crash() override {
    if (go_.alive()) go_.kill(goruntime::CrashReason::kExternal);
  }

  // A timeline change of a step's or a client's parameter (`key` its full path, checked by the
  // loader: scenarios/program.hpp deployable_param) is a new build: the process is replaced at
  // once, as a container deploy does (SIGTERM, no back-off; the dataplane kind's
  // deploy_restarts), and the new one runs the changed program with fresh pools. In-flight
  // requests die with the old process; its connections stay in TIME_WAIT.
  void deploy(std::string_view key, const sim::ParamValue& v) {
    const std::size_t dot = key.rfind('.');
    const std::string_view owner = key.substr(0, dot);
    const std::string name(key.substr(dot + 1));
    std::string why;
    const sim::ParamSpec* spec = deployable_param(*program_, owner, name, why);
    if (spec == nullptr) {  // the loader's deployable_param let it through
      throw std::logic_error(path() + ": a deploy of " + std::string(key) + ": " + why);
    }
    sim::ParamValues* params = nullptr;
    if (ClientSpec* c = program_->client_at(owner)) {
      params = &c->params;
    } else if (Step* s = program_->step_at(owner)) {
      params = &s->params;
    } else {  // the loader's deployable_param found it
      throw std::logic_error(path() + ": a deploy of " + std::string(key) + " found nothing");
    }
    params->set(name, scaled_value(*spec, v, context().scale));
    const std::string_view in_program = key.substr(key.find(kProgram) + kProgram.size());
    milestones_.push_back({sim_.now(), "deploy: " + std::string(in_program) + " = " + v.text +
                                           " (the process is replaced)"});
    deployed_ = true;
    if (go_.alive()) go_.kill(goruntime::CrashReason::kDeploy);
  }

  // The new build's clients and semaphores, before it serves (the old process's connections
  // were closed by the kernel with it).
  void redeploy() {
    deployed_ = false;
    for (auto& mc : memcache_) {
      mc.config = memcache_config(*mc.spec);
      mc.dialer = &dialer_for(*mc.spec);
    }
    for (auto& c : clients_)
      c.client->redeploy(dialer_for(*c.spec), service_client_config(*c.spec));
    build_page_filters(*world_);
    build_shard_queues(*world_);
    build_hot_caches(*world_);
    for_each_step(*program_, [&](const Step& s) {
      if (s.kind != StepKind::kSemaphore) return;
      StepSemaphore& sem = semaphores_.at(s.path);
      if (sem.limit == s.params.count("limit")) return;
      old_semaphores_.push_back(std::move(sem.units));
      sem = StepSemaphore{s.params.count("limit"),
                          std::make_unique<sim::Semaphore>(s.params.count("limit"))};
    });
    build_plans();
  }
  void restart() override {}  // the process restarts itself after restart_delay

  std::vector<Milestone> milestones() const override {
    std::vector<Milestone> out = milestones_;
    thread_surge_.append_milestones(out);
    for (const auto& c : clients_) {
      if (!c.client->first_dial_error().empty()) {
        out.push_back({c.client->first_dial_error_at(),
                       "first dial error of client " + c.name + ": " +
                           c.client->first_dial_error()});
      }
    }
    for (const auto& mc : memcache_) {
      if (!mc.first_error.empty()) {
        out.push_back({mc.first_error_at,
                       "first memcache error of client " + mc.name + ": " + mc.first_error});
      }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Milestone& a, const Milestone& b) { return a.at < b.at; });
    return out;
  }

  std::vector<Invariant> invariants() override {
    std::vector<Invariant> out = {{"fanout.kept-ge-loss-factor", [this]() -> std::string {
                                     for (auto& [where, f] : page_filters_) {
                                       if (std::string e = f.filter->keep_bound_error(); !e.empty())
                                         return where + ": " + e;
                                     }
                                     return "";
                                   }}};
    // No follower gets more timeline writes than its pages addressed to it
    // (models/fanout/delivery_book.hpp; the fanout kind's check until 7a68e53); O(1) a check.
    out.push_back({"fanout.delivered-le-offered", [this]() -> std::string {
                     return deliveries_.book ? deliveries_.book->error() : "";
                   }});
    out.push_back({"go-service.sockets",
             [this]() -> std::string {
               std::uint64_t open = 0;
               for (const auto& c : clients_) open += c.client->open_conns();
               for (const auto& mc : memcache_) open += mc.client ? mc.client->open_conns() : 0;
               const std::uint64_t held = go_.alive() ? ns_.open_sockets(owner_) : 0;
               if (go_.alive() && held != open) {
                 return path() + ": the process holds " + std::to_string(held) +
                        " sockets but its clients count " + std::to_string(open);
               }
               return "";
             }});
    // Go's P/M/G accounting: every P in exactly one state, every M accounted for.
    out.push_back({"go.runtime", [this] {
                     return go_.invariants_hold() ? std::string()
                                                  : std::string("P/M/G accounting is off");
                   }});
    // A live process's gomemcache pools agree with their connections.
    out.push_back({"memcached.pool", [this] {
                     if (!go_.alive()) return std::string();
                     for (const auto& mc : memcache_) {
                       if (!mc.client) continue;
                       if (std::string e = mc.client->check_pool(); !e.empty()) return e;
                     }
                     return std::string();
                   }});
    // The host's own socket table (a machine's is the machine's check).
    if (own_ns_) {
      out.push_back({"sockets_consistent", [this] {
                       try {
                         own_ns_->check_invariants();
                         return std::string();
                       } catch (const std::exception& e) {
                         return std::string(e.what());
                       }
                     }});
    }
    return out;
  }

 private:
  struct HandlerMetrics {
    sim::Histogram* latency;
    sim::Counter* ok;
    sim::Counter* failed;
    std::string_view name;  // the handler's, for its trace slice (the program's map key)
  };
  struct NamedClient {
    std::string name;
    const ClientSpec* spec;  // in program_, which a deploy edits
    std::unique_ptr<ServiceClient> client;
  };
  struct StepSemaphore {
    std::int64_t limit;  // as built; a deploy that changes the step's limit builds a new one
    std::unique_ptr<sim::Semaphore> units;
  };
  // A step's parameters as this build runs them, read from the program once (at start and at
  // each deploy's restart), so that a request reads fields, not a map of names: the name
  // lookups, string compares and client searches were ~5 % of the April composition's
  // profile (docs/benchmarks.md). Indexed by Step::slot.
  struct StepPlan {
    const sim::Distribution* time = nullptr;  // cpu, sleep
    std::int64_t bytes = 0;                   // alloc; a call's size; a cache step's value_bytes
    std::int64_t count = 0;                   // log lines; errgroup tasks; cache keys
    std::int64_t limit = -1;                  // errgroup
    bool live = true;                         // alloc
    bool tasks_from_request = false;          // errgroup
    std::string_view func;                    // errgroup: its goroutines' trace slice
    std::string call_name;                    // call: its trace slice, "client.endpoint"
    bool fill = true;                         // cache_get
    bool log_error = false;                   // on_error log_and_*
    bool fail_on_error = true;                // on_error fail / log_and_fail
    bool pareto = false;                      // cache_get popularity
    bool body_names_key = false;              // cache_get: a call of on_miss has `key: cache`
    bool cache_key = false;                   // call: `key: cache`
    double shape = 0;                         // cache_get pareto_shape
    double probability = 0;                   // fail
    std::int64_t cold_keys = 0;               // cache_get
    const std::string* cold_clients = nullptr;
    const std::string* client_name = nullptr;
    const std::string* endpoint = nullptr;
    const std::string* reason = nullptr;  // fail
    ServiceClient* client = nullptr;      // call
    MemcacheClient* cache = nullptr;      // cache_get, cache_set
    bool item_key = false;                // call: `key: item`
    bool tasks_from_page = false;         // errgroup
    std::int64_t uniform_keys = 0;        // call: `key: uniform`'s key space; 0 = not uniform
    const FollowGraphStore* graph = nullptr;  // follower_pages
    social::UserId author = 0;                // follower_pages
    std::uint64_t on_read_threshold = 0;      // follower_pages, read_set
    const fanout::SplitTimelines* split = nullptr;  // follower_pages, read_set: split_follows
    PageFilter* page_filter = nullptr;        // lossy_filter
    fanout::HyperFollowerDetector* detector = nullptr;  // hyper_detect; null: its flag is off
    fanout::ShardQueue* queue = nullptr;                // shard_queue
    const fanout::Policy* per_shard = nullptr;  // follower_pages, read_set: on_read per_shard
    std::uint32_t page_rows = 0;                // read_set
    HotCache* hot_cache = nullptr;              // call: hot_cache > 0
    sim::Counter* hot_hits = nullptr;           // call: hot_cache > 0
  };
  // One post's writes in a shard_queue step's queue: answered by the queue's lanes, outside
  // any goroutine; the follower_pages that queued them waits for `drained`. Kept by the service
  // (queued_posts_) while a write is out, so a crash that ends the post's goroutine leaves the
  // lanes nothing dangling to answer.
  struct QueuedPost final : fanout::ShardQueue::Client {
    GoService* svc = nullptr;
    const FollowGraphStore* store = nullptr;
    bool partitions = false;  // an on_read author's list, not followers
    struct Page {
      sim::Time start;
      std::uint64_t left;  // writes not answered yet
    };
    std::vector<Page> pages;
    std::uint64_t outstanding = 0;
    bool all_queued = false;  // the follower_pages has queued its last page
    sim::Completion<void> drained;

    bool done() const { return all_queued && outstanding == 0; }
    void on_queued_done(sim::Simulation& sim, std::uint64_t tag, sim::Duration latency,
                        bool timed_out) override {
      svc->queued_write_latency_->record(latency);
      const auto follower = static_cast<social::UserId>(tag & 0xFFFF'FFFFu);
      if (!timed_out && !partitions) svc->deliveries_.deliver(*store, follower);
      Page& page = pages[tag >> 32];
      if (--page.left == 0) svc->page_duration_->record(sim.now() - page.start);
      if (--outstanding == 0 && all_queued) drained.complete(sim);
    }
  };
  // The page a follower_pages step hands its steps: the followers a lossy_filter keeps and an
  // errgroup (tasks_from: page) starts a goroutine for.
  struct FollowerPage {
    const FollowGraphStore* store = nullptr;
    std::vector<social::UserId> items;
    std::vector<social::UserId> kept;  // lossy_filter's output, swapped into items
    // Its items are partitions, not followers: an on_read author's recent-post list (or
    // per_shard inboxes), or a read_set's (the reader's timeline and the followed lists).
    bool partitions = false;
    bool list_write = false;  // an on_read author's post: each answered write is a list row
    // A read_set's rows per item where it knows them (per_shard's inbox scan); empty: a page.
    std::vector<std::uint32_t> rows;
    // Split timelines: a follower's write goes to the part `author`'s posts land in.
    const fanout::SplitTimelines* split = nullptr;
    social::UserId author = 0;
    // The partition a write or read of `item` names.
    std::uint32_t key_of(social::UserId item) const {
      return split && !partitions ? split->partition(item, author) : item;
    }
    // shard_queue: the post's writes in the queue, and whether this page went there (its
    // time then ends at its last answer, not when the steps return).
    std::shared_ptr<QueuedPost> queued;
    bool page_queued = false;
  };
  // What one request's steps share: the heap they keep until the handler returns. A
  // cache_get's on_miss steps that name the missed key run on a child state holding it (the
  // errgroup's goroutines share their request's state, so the key cannot live there).
  struct RequestState {
    std::int64_t size_bytes = 0;
    std::int64_t live_bytes = 0;  // the root's: what the handler releases when it returns
    std::string client;  // the caller's client name (cache_get's cold_clients)
    std::optional<std::uint64_t> key;    // the missed key, for a call with `key: cache`
    std::shared_ptr<FollowerPage> page;  // follower_pages' current page
    social::UserId item = 0;             // an errgroup task's follower (tasks_from: page)
    std::uint32_t rows = 0;              // and the rows its read scans (0: the target's own)
    std::shared_ptr<RequestState> root;  // a child's request; null for the request itself
    RequestState& request() { return root ? *root : *this; }
  };

  ServiceClient& client(const std::string& name) {
    for (auto& c : clients_) {
      if (c.name == name) return *c.client;
    }
    throw std::logic_error("go-service " + path() + ": no client " + name);  // loader checks
  }

  // A request's goroutine: its steps, then the answer through `done` (Request::done). A
  // process of its own (GoProcess::go_process), started in incarnation `inc`: one frame per
  // request, not a wrapper's and this one's.
  sim::Process serve(std::uint64_t inc, std::shared_ptr<RequestState> state,
                     std::function<void(const Response&)> done, HandlerMetrics& hm,
                     const std::vector<Step>& steps) {
    auto g = co_await go_.enter(inc);
    sim::TraceSpan rpc = co_await sim::trace_span(sim_, hm.name, "rpc");
    const sim::Time began = sim_.now();
    // A goroutine killed with its process leaves its caller an answer.
    sim::OnUnwind answer(sim_, [&done] {
      if (done) std::exchange(done, nullptr)(Response{false, "crashed"});
    });
    // run()'s loop in this frame: a parked request holds one frame fewer (an overload parks
    // ~875,000 of them, docs/benchmarks.md).
    Response resp;
    for (const Step& s : steps) {
      still_running();
      std::optional<sim::Task<Response>> next;  // one await of a step: one slot in the frame
      if (s.kind == StepKind::kSemaphore) {
        // Acquire in this frame too: a request parked on the semaphore holds no step frame.
        sim::Semaphore& sem = units_of(s);
        co_await sem.acquire(1);
        next.emplace(semaphore_held(s, sem, state));
      } else {
        next.emplace(step(s, state));
      }
      resp = co_await std::move(*next);
      if (!resp.ok) break;
    }
    answer.dismiss();
    go_.release(state->live_bytes);
    (resp.ok ? hm.ok : hm.failed)->add();
    if (resp.ok) hm.latency->record(sim_.now() - began);
    if (rpc) {
      rpc.end({{"endpoint", hm.name},
               {"client", state->client},
               {"uris", state->size_bytes},
               {"error", resp.error}});
    }
    if (done) std::exchange(done, nullptr)(resp);
  }

  // main()'s gocql.NewSession for each gocql client, as the process starts: its Scylla pools
  // are dialed now, so a restart into the dead process's TIME_WAIT finds out at once whether
  // connect() has a port left (docs/models/net.md).
  void start_sessions() {
    if (!go_.alive()) return;
    for (const auto& c : clients_) {
      if (c.client->multiplexed()) go_.go_process(session_start(go_.incarnation(), *c.client));
    }
  }
  sim::Process session_start(std::uint64_t inc, ServiceClient& client) {
    auto g = co_await go_.enter(inc);
    co_await client.fill_pools(owner_);
  }

  // A step can kill the process without suspending its goroutine (an allocation that crosses
  // the memory limit, the OOM kill running inside it); the dead process runs no further
  // statement, so the goroutine unwinds here as the kill's cancellation would at its next
  // suspension (the same rule as the data plane's launcher).
  void still_running() const {
    if (!go_.alive()) throw sim::Cancelled{};
  }

  // The handler's steps in order. Each step is a coroutine of its own, started by step(), so
  // a parked goroutine's frames hold only the step it is parked in, and this loop's frame
  // holds one awaiter: a 1-minute overload parks ~875,000 goroutines on a semaphore
  // (docs/uid-interning.md, "As a composition"; one frame with every step's awaiters was
  // 1,088 bytes). Awaiting the cpu and alloc steps here instead saved 2.8 % of the April
  // composition's instructions and cost that overload 11 % more peak RSS (1,477 -> 1,642 MB):
  // not taken (docs/benchmarks.md, twenty-first session).
  sim::Task<Response> run(const std::vector<Step>& steps, std::shared_ptr<RequestState> state) {
    for (const Step& s : steps) {
      still_running();
      Response r = co_await step(s, state);
      if (!r.ok) co_return r;
    }
    co_return Response{};
  }

  // Not a coroutine: it picks the step's coroutine, which starts when run() awaits it.
  sim::Task<Response> step(const Step& s, const std::shared_ptr<RequestState>& state) {
    const StepPlan& p = plans_[s.slot];
    switch (s.kind) {
      case StepKind::kCpu:
        return cpu_step(p.time->sample_duration(rng_));
      case StepKind::kSleep:
        return sleep_step(p.time->sample_duration(rng_));
      case StepKind::kAlloc:
        return alloc_step(p, *state);
      case StepKind::kCall:
        return call_step(p, *state);
      case StepKind::kCacheGet:
        return cache_get_step(s, p, state);
      case StepKind::kCacheSet:
        return cache_set_step(p);
      case StepKind::kErrgroup:
        return errgroup_step(s, p, state);
      case StepKind::kSemaphore:
        return semaphore_step(s, state);
      case StepKind::kUidAlloc:
        return intern(fdb_client(s.params.string("client")), interners_.at(s.path), s);
      case StepKind::kFdbTxn:
        return transact(fdb_client(s.params.string("client")), s);
      case StepKind::kLog:
        return log_step(p.count);
      case StepKind::kFail:
        return fail_step(p);
      case StepKind::kMaxItems:
        return max_items_step(p, *state);
      case StepKind::kFollowerPages:
        return follower_pages_step(s, p, state);
      case StepKind::kLossyFilter:
        return lossy_filter_step(p, *state);
      case StepKind::kReadSet:
        return read_set_step(p, *state);
      case StepKind::kHyperDetect:
        return hyper_detect_step(p, *state);
      case StepKind::kShardQueue:
        return shard_queue_step(p, *state);
    }
    throw std::logic_error("go-service " + path() + ": a step of no known kind");
  }

  sim::Task<Response> cpu_step(sim::Duration time) {
    co_await go_.cpu(time);
    co_return Response{};
  }
  sim::Task<Response> sleep_step(sim::Duration time) {
    co_await sim::sleep(time);
    co_return Response{};
  }
  sim::Task<Response> alloc_step(const StepPlan& p, RequestState& state) {
    auto allocated = allocation(p);
    co_await allocated;
    kept_live(p, state);
    co_return Response{};
  }
  // An alloc step's allocation, and what the request keeps of it once it is made (shared by
  // alloc_step and the errgroup goroutine, which awaits it in its own frame).
  goruntime::GoProcess::AllocAwaiter allocation(const StepPlan& p) {
    return p.live ? go_.alloc_live(p.bytes) : go_.alloc(p.bytes);
  }
  static void kept_live(const StepPlan& p, RequestState& state) {
    if (p.live) state.request().live_bytes += p.bytes;
  }
  sim::Task<Response> log_step(std::int64_t lines) {
    for (std::int64_t i = 0; i < lines; ++i) co_await logger_.error();
    co_return Response{};
  }
  sim::Task<Response> fail_step(const StepPlan& p) {
    if (rng_.uniform01() < p.probability) co_return Response{false, error_text(*p.reason)};
    co_return Response{};
  }

  sim::Task<Response> max_items_step(const StepPlan& p, RequestState& state) {
    if (state.request().size_bytes > p.count) co_return Response{false, "too_many_items"};
    co_return Response{};
  }

  // The error a step returns to its handler; an error it only counts is Response{}.
  sim::Task<Response> call_step(const StepPlan& p, const RequestState& state) {
    const std::int64_t size = p.bytes > 0 ? p.bytes : state.size_bytes;
    std::optional<std::uint64_t> key;
    if (p.cache_key) {
      key = state.key;
    } else if (p.item_key) {
      key = state.page->key_of(state.item);
    } else if (p.uniform_keys > 0) {
      key = static_cast<std::uint64_t>(rng_.uniform_int(0, p.uniform_keys - 1));
    }
    Deliveries::Answer answer;
    if (p.item_key) answer = deliveries_.answer_for(*state.page, state.item);
    std::uint32_t partition = 0;
    if (p.hot_cache) {
      // A fresh copy of a hot key: answered here, no request (stale if rows landed since).
      partition = static_cast<std::uint32_t>(*key % p.hot_cache->partitions);
      if (p.hot_cache->cache.lookup(partition, sim_.now())) {
        p.hot_hits->add();
        p.hot_cache->nodes->cache_hit(partition);
        co_return Response{};
      }
    }
    sim::TraceSpan span = co_await sim::trace_span(sim_, p.call_name, "rpc");
    Response r = co_await p.client->call(*p.endpoint, size, owner_, key,
                                         p.item_key ? state.rows : 0);
    span.end();
    if (p.hot_cache && r.ok) {
      p.hot_cache->cache.on_reply(partition, r.hot, sim_.now());
      if (r.hot) p.hot_cache->nodes->cached(partition);
    }
    if (r.ok) deliveries_.answered(answer);
    if (!r.ok) {
      call_error(*p.client_name, r.error).add();
      if (p.log_error) co_await logger_.error();
      if (p.fail_on_error) co_return r;
    }
    co_return Response{};
  }

  // The key a cache_get names: from the cold space for a cold client, else among `keys`
  // (uniform, or a Pareto rank as the dataplane kind's hot posts).
  // A drawn key: memcached's text, and the number a keyed call names (cold keys above 2^62,
  // a space of their own).
  struct CacheKey {
    std::string text;
    std::uint64_t id;
  };
  static CacheKey make_key(char space, std::uint64_t n) {
    return {space + std::to_string(n), space == 'c' ? n | (std::uint64_t{1} << 62) : n};
  }
  CacheKey cache_key(const StepPlan& p, const std::string& caller) {
    if (!p.cold_clients->empty() && lists_client(*p.cold_clients, caller)) {
      return make_key('c', static_cast<std::uint64_t>(rng_.uniform_int(0, p.cold_keys - 1)));
    }
    const std::int64_t keys = p.count;
    if (p.pareto) {
      const double rank = rng_.pareto(1.0, p.shape) - 1.0;
      const double capped = std::min(rank, 1e18);  // a huge draw stays an integer
      return make_key('k', static_cast<std::uint64_t>(capped) % static_cast<std::uint64_t>(keys));
    }
    return make_key('k', static_cast<std::uint64_t>(rng_.uniform_int(0, keys - 1)));
  }

  sim::Task<Response> cache_get_step(const Step& s, const StepPlan& p,
                                     std::shared_ptr<RequestState> state) {
    MemcacheClient& mc = *p.cache;
    const CacheKey drawn = cache_key(p, state->request().client);
    const std::string& key = drawn.text;
    memcached::McResult got = co_await mc.client->get(key);
    if (got.ok()) {
      ++mc.hits;
      co_return Response{};
    }
    if (got.status != memcached::McStatus::kCacheMiss) {
      if (mc.first_error.empty()) {
        mc.first_error = got.error_text();
        mc.first_error_at = sim_.now();
      }
      memcache_error_counter(mc, got.status).add();
      if (p.fail_on_error) co_return Response{false, memcache_error(got.status)};
      if (p.log_error) co_await logger_.error();
    }
    ++mc.misses;
    if (p.body_names_key) {
      auto child = std::make_shared<RequestState>();
      child->size_bytes = state->size_bytes;
      child->client = state->client;
      child->key = drawn.id;
      child->root = state->root ? state->root : state;
      state = std::move(child);
    }
    // A one-step fallback (the usual `on_miss: [call]`) awaits its step here: run()'s frame
    // would be one more per miss.
    Response served;
    if (s.body.size() == 1) {
      still_running();
      served = co_await step(s.body.front(), state);
    } else {
      served = co_await run(s.body, state);
    }
    if (!served.ok) co_return served;
    still_running();
    if (p.fill) {
      memcached::McItem item;
      item.value_bytes = static_cast<std::uint32_t>(p.bytes);
      memcached::McResult set = co_await mc.client->set(key, item);
      if (!set.ok()) {
        // The data plane logged these too: the post-mortem's "failed to set post cache item".
        memcache_error_counter(mc, set.status).add();
        if (p.log_error) co_await logger_.error();
      }
    }
    co_return Response{};
  }

  sim::Task<Response> cache_set_step(const StepPlan& p) {
    const std::string key = "k" + std::to_string(rng_.uniform_int(0, p.count - 1));
    memcached::McItem item;
    item.value_bytes = static_cast<std::uint32_t>(p.bytes);
    memcached::McResult set = co_await p.cache->client->set(key, item);
    if (!set.ok()) {
      memcache_error_counter(*p.cache, set.status).add();
      if (p.fail_on_error) co_return Response{false, memcache_error(set.status)};
    }
    co_return Response{};
  }

  sim::Task<Response> errgroup_step(const Step& s, const StepPlan& p,
                                    std::shared_ptr<RequestState> state) {
    errgroup::Group group(sim_);  // its goroutines are go_'s, started by the feeds below
    group.set_limit(p.limit);
    const std::vector<Step>& body = s.body;
    // The awaiters named, not temporaries in the co_await: GCC 12 (errgroup.hpp).
    if (p.tasks_from_page) {
      auto each = group.go_each(PageMembers{this, go_.incarnation(), &body, p.func, state});
      co_await each;
    } else {
      const std::int64_t tasks = p.tasks_from_request ? state->size_bytes : p.count;
      auto each = group.go_each(SameMembers{this, go_.incarnation(), &body, p.func, state,
                                            static_cast<std::size_t>(std::max<std::int64_t>(0, tasks))});
      co_await each;
    }
    errgroup::Error err = co_await group.wait();
    if (err) co_return Response{false, error_text(err.text())};
    co_return Response{};
  }

  // follower_pages: for each page of the author's followers, the store's round trip, then the
  // `do` steps on that page; the next page only after they return (domain.md §8.2).
  sim::Task<Response> follower_pages_step(const Step& s, const StepPlan& p,
                                          std::shared_ptr<RequestState> state) {
    const FollowGraphStore& store = *p.graph;
    const std::span<const social::UserId> followers = store.graph->followers(p.author);
    const auto page_size = static_cast<std::size_t>(p.count);
    auto child = std::make_shared<RequestState>();
    child->size_bytes = state->size_bytes;
    child->page = std::make_shared<FollowerPage>();
    child->page->store = &store;
    child->root = state->root ? state->root : state;
    child->page->split = p.split;
    child->page->author = p.author;
    if (p.on_read_threshold > 0 && followers.size() >= p.on_read_threshold) {
      // Merged at read time: only the author's recent-post list is written (§8.5), or under
      // per_shard one row into each inbox that holds a follower.
      child->page->partitions = true;
      child->page->list_write = true;
      if (p.per_shard) {
        child->page->items.clear();
        p.per_shard->merged_write_keys(p.author, child->page->items);
      } else {
        child->page->items.assign(1, store.graph->users() + p.author);
      }
      Response written = co_await run(s.body, child);
      co_await queued_writes_answered(*child->page);
      co_return written;
    }
    for (std::size_t cursor = 0; cursor < followers.size(); cursor += page_size) {
      co_await sim::sleep(store.page_fetch);
      still_running();
      const std::size_t n = std::min(page_size, followers.size() - cursor);
      std::vector<social::UserId>& items = child->page->items;
      items.assign(followers.begin() + static_cast<std::ptrdiff_t>(cursor),
                   followers.begin() + static_cast<std::ptrdiff_t>(cursor + n));
      for (const social::UserId u : items) deliveries_.offer(store, u);
      const sim::Time page_start = sim_.now();
      // A slice per page on the post's goroutine (traced only; docs/tracing.md).
      sim::TraceSpan page_span = co_await sim::trace_span(sim_, "page", "fanout");
      child->page->page_queued = false;
      Response served = co_await run(s.body, child);
      if (!child->page->page_queued) page_duration_->record(sim_.now() - page_start);
      if (page_span) page_span.end({{"writes", static_cast<std::int64_t>(n)}});
      if (!served.ok) co_return served;
    }
    co_await queued_writes_answered(*child->page);
    co_return Response{};
  }

  // The post ends when every write a shard_queue step queued for it is answered.
  sim::Task<void> queued_writes_answered(FollowerPage& page) {
    if (!page.queued) co_return;
    page.queued->all_queued = true;
    if (!page.queued->done()) co_await page.queued->drained.wait();
  }

  // shard_queue: the page's writes into the shard-partitioned queue, and back at once.
  sim::Task<Response> shard_queue_step(const StepPlan& p, RequestState& state) {
    FollowerPage& page = *state.page;
    if (p.queue == nullptr) co_return Response{};  // the flag off: the page goes on whole
    if (!page.queued) {
      std::erase_if(queued_posts_, [](const auto& q) { return q->done(); });
      page.queued = std::make_shared<QueuedPost>();
      page.queued->svc = this;
      page.queued->store = page.store;
      page.queued->partitions = page.partitions;
      queued_posts_.push_back(page.queued);
    }
    QueuedPost& post = *page.queued;
    const std::uint64_t index = post.pages.size();
    post.pages.push_back({sim_.now(), page.items.size()});
    page.page_queued = !page.items.empty();  // an empty page's time is recorded now
    for (const social::UserId u : page.items) {
      ++post.outstanding;
      p.queue->push(page.key_of(u), post, index << 32 | u);
    }
    page.items.clear();  // the writes are the queue's now
    co_return Response{};
  }

  // lossy_filter: the page narrowed in place by the production filter (or kept whole with
  // the feature flag off).
  sim::Task<Response> lossy_filter_step(const StepPlan& p, RequestState& state) {
    FollowerPage& page = *state.page;
    if (page.partitions) co_return Response{};  // a recent-post list, not followers
    page.kept.clear();
    p.page_filter->filter->filter_page(page.items.data(), page.items.size(),
                                       *p.page_filter->page_r, page.kept);
    page.items.swap(page.kept);
    co_return Response{};
  }

  // hyper_detect: each follower of the page shown to the detector as a write about to be made;
  // the ones it refuses leave the page.
  sim::Task<Response> hyper_detect_step(const StepPlan& p, RequestState& state) {
    FollowerPage& page = *state.page;
    // A recent-post list is not followers; a detector whose flag is off passes every write.
    if (page.partitions || p.detector == nullptr) co_return Response{};
    p.detector->admit_page(page.items, 0, sim_.now());
    co_return Response{};
  }

  // read_set: the reader's own timeline and the lists of the on-read authors they follow, as
  // the page the next errgroup reads (the on_read policy's keys, models/fanout/policies/on_read.cpp).
  sim::Task<Response> read_set_step(const StepPlan& p, RequestState& state) {
    const social::FollowGraph& g = *p.graph->graph;
    auto page = std::make_shared<FollowerPage>();
    page->store = p.graph;
    page->partitions = true;
    const auto reader = static_cast<social::UserId>(rng_.uniform_int(0, g.users() - 1));
    page->items.push_back(reader);
    // The merge reads every part (it cannot know which holds the newest rows).
    if (p.split) p.split->append_extra(reader, page->items);
    if (p.per_shard) {
      // The reader's shard's inbox, scanned for a page of the authors it follows.
      std::vector<fanout::ReadKey> keys;
      p.per_shard->read_keys(reader, keys);
      page->rows.assign(page->items.size(), p.page_rows);
      for (const fanout::ReadKey& k : keys) {
        page->items.push_back(k.partition);
        page->rows.push_back(k.rows);
      }
    } else if (p.on_read_threshold > 0) {
      for (const social::UserId a : g.follows(reader)) {
        if (g.follower_count(a) >= p.on_read_threshold) page->items.push_back(g.users() + a);
      }
    }
    ++deliveries_.reads;
    deliveries_.read_partitions += page->items.size();
    if (page->rows.empty()) {
      deliveries_.read_rows += page->items.size() * p.page_rows;
    } else {
      for (const std::uint32_t r : page->rows) deliveries_.read_rows += r;
    }
    state.page = std::move(page);
    co_return Response{};
  }

  // semaphore.Weighted: Acquire(1), the steps, Release(1).
  sim::Task<Response> semaphore_step(const Step& s, std::shared_ptr<RequestState> state) {
    sim::Semaphore& sem = units_of(s);
    co_await sem.acquire(1);
    co_return co_await semaphore_held(s, sem, std::move(state));
  }
  sim::Semaphore& units_of(const Step& s) { return *semaphores_.at(s.path).units; }
  // The steps under a unit acquired, then its Release (also when the goroutine unwinds).
  sim::Task<Response> semaphore_held(const Step& s, sim::Semaphore& sem,
                                     std::shared_ptr<RequestState> state) {
    sim::OnUnwind give_back(sim_, [&sem] { sem.release(1); });
    Response served;
    for (const Step& inner : s.body) {  // run()'s loop in this frame, as serve's
      still_running();
      served = co_await step(inner, state);
      if (!served.ok) break;
    }
    give_back.dismiss();
    sem.release(1);
    co_return served;
  }

  // An fdb step's error, counted in call.errors.
  Response fdb_error(const FdbClient& c, std::string_view error) {
    call_error(c.name, error).add();
    return Response{false, error_text(error)};
  }

  // uid_alloc: db.Transact of one interning, retried by onError (models/fdb interning_workload).
  sim::Task<Response> intern(FdbClient& c, Interner& in, const Step& s) {
    if (!c.cluster->available()) co_return fdb_error(c, "fdb_unavailable");
    const std::string str = in.strings.next();
    const sim::Time began = sim_.now();
    fdb::InternReply reply = co_await fdb::intern_with_retries(
        c.cluster->database(), *in.allocator, in.rng, str,
        static_cast<int>(s.params.count("max_attempts")), c.cluster->interning_tally());
    switch (reply.status) {
      case fdb::InternStatus::acknowledged:
        c.cluster->acknowledge(str, reply.uid);
        c.intern_latency->record(sim_.now() - began);
        co_return Response{};
      case fdb::InternStatus::collision:
        co_return fdb_error(c, "collision");
      case fdb::InternStatus::allocation_failed:
        co_return fdb_error(c, "exhausted");
      case fdb::InternStatus::gave_up:
        break;
    }
    co_return fdb_error(c, "gave_up");
  }

  // fdb_txn: db.Transact(func(tr) { Get each read key; Set each written one }), retried by
  // onError (backoff, a fresh read version) until it commits or max_attempts have failed.
  sim::Task<Response> transact(FdbClient& c, const Step& s) {
    if (!c.cluster->available()) co_return fdb_error(c, "fdb_unavailable");
    const std::int64_t keys = s.params.count("keys");
    const std::string value(static_cast<std::size_t>(s.params.size_bytes("value_bytes")), 'v');
    auto key = [this, keys] { return "k/" + std::to_string(rng_.uniform_int(0, keys - 1)); };
    fdb::Transaction tr(c.cluster->database(), rng_);
    for (std::int64_t attempt = 1;; ++attempt) {
      std::optional<fdb::Error> error;
      try {
        for (std::int64_t i = 0; i < s.params.count("reads"); ++i) co_await tr.get(key());
        for (std::int64_t i = 0; i < s.params.count("writes"); ++i) tr.set(key(), value);
        co_await tr.commit();
        co_return Response{};
      } catch (const fdb::Error& e) {
        error = e;
      }
      if (attempt >= s.params.count("max_attempts")) co_return fdb_error(c, "gave_up");
      co_await tr.on_error(*error);  // rethrows what is not retryable: a model bug
      still_running();
    }
  }

  sim::Counter& memcache_error_counter(MemcacheClient& mc, memcached::McStatus st) {
    sim::Counter*& c = mc.errors.at(static_cast<std::size_t>(st));
    if (!c) c = &call_error(mc.name, memcache_error(st));
    return *c;
  }

  // Every step's plan from the program as it stands (at start, and at a deploy's restart).
  void build_plans() {
    std::uint32_t next = 0;
    plans_.clear();
    std::function<void(std::vector<Step>&)> walk = [&](std::vector<Step>& steps) {
      for (Step& s : steps) {
        s.slot = next++;
        plans_.push_back(plan_of(s));
        walk(s.body);
      }
    };
    for (auto& [name, steps] : program_->handlers) walk(steps);
  }

  // Whether a call among `steps` names the missed key (not inside a nested cache_get, whose
  // own miss names its own).
  static bool names_missed_key(const std::vector<Step>& steps) {
    for (const Step& s : steps) {
      if (s.kind == StepKind::kCall && s.params.choice("key") == "cache") return true;
      if (s.kind != StepKind::kCacheGet && names_missed_key(s.body)) return true;
    }
    return false;
  }

  // split_follows' layout from the graph's store (shared by the steps that write and read
  // it), or none for 0.
  static const fanout::SplitTimelines* split_layout(const FollowGraphStore& store,
                                                    std::int64_t split_follows) {
    if (split_follows == 0) return nullptr;
    return &store.split(static_cast<std::uint32_t>(split_follows));
  }

  static constexpr std::uint32_t kDefaultPageRows = 50;  // read_set's page_rows default
  // on_read per_shard: the kind's own policy (models/fanout/policies/per_shard.cpp) on the
  // graph and the cluster the step's `cluster:` client reaches, one per (threshold, cluster,
  // page rows), shared by the steps that write and read the inboxes. Null for on_read lists.
  const fanout::Policy* per_shard_policy(const Step& s, const StepPlan& p) {
    if (s.params.choice("on_read") != "per_shard") return nullptr;
    const std::string& name = s.params.string("cluster");
    const ClientSpec* spec = name.empty() ? nullptr : program_->client(name);
    scylla::ScyllaCluster* cluster =
        spec ? scylla_cluster_of(target_hosts(*world_, *spec).at(0)) : nullptr;
    if (cluster == nullptr || p.on_read_threshold == 0) {
      throw std::invalid_argument(
          "on_read at " + s.where + ": per_shard needs on_read_threshold > 0 and "
          "cluster: naming a client of this program to a scylla service (got '" + name + "')");
    }
    const std::string key = std::to_string(p.on_read_threshold) + "/" + spec->target_service +
                            "/" + std::to_string(p.page_rows);
    std::unique_ptr<fanout::Policy>& policy = per_shard_policies_[key];
    if (!policy) {
      fanout::PolicyContext ctx{*p.graph->graph};
      ctx.on_read_threshold = static_cast<std::uint32_t>(p.on_read_threshold);
      ctx.lists_base = p.graph->graph->users();
      ctx.read_page_rows = p.page_rows;
      ctx.cluster = cluster;
      policy = fanout::make_policy(fanout::FanoutPolicy::PerShard, ctx);
    }
    return policy.get();
  }

  StepPlan plan_of(const Step& s) {
    const sim::ParamValues& v = s.params;
    StepPlan p;
    auto on_error = [&p, &v] {
      const std::string& policy = v.choice("on_error");
      p.log_error = policy.starts_with("log_and_");
      p.fail_on_error = policy.ends_with("fail");
    };
    switch (s.kind) {
      case StepKind::kCpu:
      case StepKind::kSleep:
        p.time = &v.distribution("time");
        break;
      case StepKind::kAlloc:
        p.bytes = v.size_bytes("bytes");
        p.live = v.flag("live");
        break;
      case StepKind::kCall:
        p.client_name = &v.string("client");
        p.client = &client(*p.client_name);
        p.endpoint = &v.string("endpoint");
        p.call_name = *p.client_name + "." + *p.endpoint;
        p.bytes = v.size_bytes("size");
        p.cache_key = v.choice("key") == "cache";
        p.item_key = v.choice("key") == "item";
        p.uniform_keys = v.choice("key") == "uniform" ? v.count("keys") : 0;
        if (auto it = hot_caches_.find(s.path); it != hot_caches_.end()) {
          p.hot_cache = it->second.get();
          p.hot_hits = &metrics_.counter("call.hot_cache_hits",
                                         {{"host", path()}, {"client", *p.client_name}});
        }
        on_error();
        break;
      case StepKind::kCacheGet:
        p.cache = &memcache(v.string("client"));
        p.count = v.count("keys");
        p.pareto = v.choice("popularity") == "pareto";
        p.shape = v.real("pareto_shape");
        p.cold_clients = &v.string("cold_clients");
        p.cold_keys = v.count("cold_keys");
        p.bytes = v.size_bytes("value_bytes");
        p.fill = v.flag("fill");
        p.body_names_key = names_missed_key(s.body);
        on_error();
        break;
      case StepKind::kCacheSet:
        p.cache = &memcache(v.string("client"));
        p.count = v.count("keys");
        p.bytes = v.size_bytes("value_bytes");
        on_error();
        break;
      case StepKind::kErrgroup:
        p.limit = v.integer("limit");
        p.count = v.count("tasks");
        p.tasks_from_request = v.choice("tasks_from") == "request_size";
        p.func = v.string("func");
        p.tasks_from_page = v.choice("tasks_from") == "page";
        break;
      case StepKind::kReadSet:
        p.graph = graph_client(v.string("client")).store;
        p.on_read_threshold = static_cast<std::uint64_t>(v.count("on_read_threshold"));
        p.split = split_layout(*p.graph, v.count("split_follows"));
        p.page_rows = static_cast<std::uint32_t>(v.count("page_rows"));
        p.per_shard = per_shard_policy(s, p);
        break;
      case StepKind::kFollowerPages: {
        p.graph = graph_client(v.string("client")).store;
        p.count = v.count("page_size");
        p.on_read_threshold = static_cast<std::uint64_t>(v.count("on_read_threshold"));
        p.split = split_layout(*p.graph, v.count("split_follows"));
        // The write side scans nothing; read_set's default, so both share one per_shard policy.
        p.page_rows = kDefaultPageRows;
        p.per_shard = per_shard_policy(s, p);
        try {
          p.author = p.graph->graph->id_of(v.string("author"));
        } catch (const std::out_of_range&) {
          std::string named;
          for (const auto& [id, name] : p.graph->graph->named()) {
            named += (named.empty() ? "" : ", ") + name;
          }
          throw std::invalid_argument("follower_pages at " + s.where + ": author: no account '" +
                                      v.string("author") + "' in the graph (named: " + named +
                                      ")");
        }
        break;
      }
      case StepKind::kLossyFilter:
        p.page_filter = &page_filters_.at(s.path);
        break;
      case StepKind::kHyperDetect:
        p.detector = detector_client(v.string("client"));
        break;
      case StepKind::kShardQueue:
        p.queue = v.flag("enabled") ? shard_queues_.at(s.path).get() : nullptr;
        break;
      case StepKind::kLog:
        p.count = v.count("lines");
        break;
      case StepKind::kMaxItems:
        p.count = v.count("limit");
        break;
      case StepKind::kFail:
        p.probability = v.fraction("probability");
        p.reason = &v.string("reason");
        break;
      case StepKind::kSemaphore:
      case StepKind::kUidAlloc:
      case StepKind::kFdbTxn:
        break;  // read from their state (semaphores_, interners_) and params as they run
    }
    return p;
  }

  // `call.errors{host,client,error}`, made on the first error of its kind (no string work on
  // the calls that succeed).
  sim::Counter& call_error(const std::string& client, std::string_view error) {
    auto key = std::make_pair(client, std::string(error));
    auto it = call_errors_.find(key);
    if (it == call_errors_.end()) {
      sim::Counter& c = metrics_.counter(
          "call.errors", {{"host", path()}, {"client", client}, {"error", std::string(error)}});
      it = call_errors_.emplace(std::move(key), &c).first;
    }
    return *it->second;
  }

  // The `for ... { g.Go(func() error { steps }) }` loops of an errgroup step, as
  // errgroup::Group::go_each feeds: goroutine i once the group has a slot for it, in the
  // incarnation the loop began in.
  struct MemberFeed {
    GoService* svc;
    std::uint64_t incarnation;
    const std::vector<Step>* steps;
    std::string_view func;  // errgroup's `func`: the goroutines' trace slice
    bool live() const { return svc->go_.alive() && svc->go_.incarnation() == incarnation; }
    void go(errgroup::Member member, std::shared_ptr<RequestState> state) const {
      svc->go_.go_process(
          svc->errgroup_goroutine(incarnation, std::move(member), *steps, func, std::move(state)));
    }
  };
  // One goroutine per follower of the page, each with its own child state.
  struct PageMembers : MemberFeed {
    std::shared_ptr<RequestState> state;
    std::size_t count() const { return state->page->items.size(); }
    void start(std::size_t i, errgroup::Member member) const {
      const FollowerPage& page = *state->page;
      auto child = sim::make_pooled<RequestState>();
      child->size_bytes = state->size_bytes;
      child->page = state->page;
      child->item = page.items[i];
      child->rows = page.rows.empty() ? 0 : page.rows[i];
      child->root = state->root ? state->root : state;
      go(std::move(member), std::move(child));
    }
  };
  // `n` goroutines sharing the request's state.
  struct SameMembers : MemberFeed {
    std::shared_ptr<RequestState> state;
    std::size_t n;
    std::size_t count() const { return n; }
    void start(std::size_t, errgroup::Member member) const { go(std::move(member), state); }
  };

  // An errgroup goroutine: the func's steps and x/sync's wrapper around them in the
  // goroutine's own frame, which is the process (a fan-out starts one per follower, millions
  // a run: one frame where go(), the group's wrapper and the func were three).
  sim::Process errgroup_goroutine(std::uint64_t incarnation, errgroup::Member joined,
                                  const std::vector<Step>& steps, std::string_view func_name,
                                  std::shared_ptr<RequestState> state) {
    auto g = co_await go_.enter(incarnation);
    errgroup::Member member = std::move(joined);  // leaves the group before g ends, unwinding too
    sim::TraceSpan func;
    if (!func_name.empty()) func = co_await sim::trace_span(sim_, func_name, "rpc");
    errgroup::Error err;
    for (const Step& s : steps) {
      still_running();
      // Go code and allocations, most of a fan-out func's steps, run in this frame: their own
      // step coroutines were two or three more frames per URI (alloc 320 B, cpu 192 B), made,
      // touched and freed by every one of a full-size batch's ~20,000 goroutines.
      if (s.kind == StepKind::kCpu) {
        sim::Task<> work = go_.cpu(plans_[s.slot].time->sample_duration(rng_));
        co_await std::move(work);
        continue;
      }
      if (s.kind == StepKind::kAlloc) {
        auto allocated = allocation(plans_[s.slot]);
        co_await allocated;
        kept_live(plans_[s.slot], *state);
        continue;
      }
      Response r = co_await step(s, state);
      if (!r.ok) {
        err = errgroup::Error(std::string(r.error));
        break;
      }
    }
    co_await member.finish(std::move(err));
  }

  sim::Simulation& sim_;
  std::shared_ptr<Program> program_;
  Machine* machine_;  // the machine it shares with other services' processes, or null
  goruntime::GoProcess go_;
  // A shared machine's socket table, or this host's own.
  std::unique_ptr<net::NetNamespace> own_ns_;
  PortRangeSysctl own_port_range_;  // a host of its own: the range as written, for `sysctl -w`
  net::NetNamespace& ns_;
  sim::Rng& rng_;
  sim::Rng& pick_;
  logsink::LogSink sink_;
  logsink::Logger logger_;
  std::int64_t baseline_;
  sim::Duration port_scan_ns_;  // the kernel's time per port a dial's search examines
  net::OwnerId owner_base_ = 0;  // this process's first owner id in ns_ (0 on a host of its own)
  net::OwnerId owner_ = 0;
  std::vector<NamedClient> clients_;
  std::deque<MemcacheClient> memcache_;  // deque: gauges hold pointers to its elements
  std::vector<FdbClient> fdb_;
  std::vector<GraphClient> graphs_;
  struct DetectorClient {
    std::string name;
    fanout::HyperFollowerDetector* detector;  // null: the detector's flag is off
  };
  std::vector<DetectorClient> detectors_;
  std::map<std::string, PageFilter, std::less<>> page_filters_;  // by the lossy_filter's path
  std::vector<std::unique_ptr<fanout::InstanceFilter>> old_filters_;  // a deploy's predecessors
  Deliveries deliveries_;
  // shard_queue steps' queues, by the step's path (a deploy's rebuild parks the old ones in
  // old_queues_: the cluster still answers their writes), and the posts with writes in them.
  std::map<std::string, std::unique_ptr<fanout::ShardQueue>, std::less<>> shard_queues_;
  // call steps' hot-key caches, by the step's path (a deploy's rebuild parks the old ones:
  // a goroutine of the old process may still hold its plan).
  std::map<std::string, std::unique_ptr<HotCache>, std::less<>> hot_caches_;
  bool staleness_metrics_ = false;  // the lossy_filter steps' staleness audit registered
  std::vector<std::unique_ptr<HotCache>> old_hot_caches_;
  std::vector<std::unique_ptr<fanout::ShardQueue>> old_queues_;
  std::vector<std::shared_ptr<QueuedPost>> queued_posts_;
  std::map<std::string, std::unique_ptr<fanout::Policy>> per_shard_policies_;
  sim::Histogram* queued_write_latency_ = nullptr;  // fanout.queued_write_latency_ns
  sim::Histogram* page_duration_ = nullptr;  // fanout.page_duration_ns, when the program walks
  World* world_ = nullptr;
  std::map<std::string, Interner, std::less<>> interners_;  // by the step's --set path
  std::map<std::string, StepSemaphore, std::less<>> semaphores_;  // by the step's --set path
  std::vector<std::unique_ptr<sim::Semaphore>> old_semaphores_;   // a deploy's predecessors
  bool deployed_ = false;  // a deploy's new build waits for the restart that replaces the process
  std::vector<StepPlan> plans_;  // by Step::slot
  net::DefaultDialer dialer_;
  net::FdLimit fd_limit_;        // RLIMIT_NOFILE, shared by every client's dials
  bool emfile_counter_ = false;
  std::vector<std::unique_ptr<net::Dialer>> dialers_;  // fixed_source, random_loopback
  std::map<std::string, HandlerMetrics, std::less<>> handlers_;
  std::vector<Milestone> milestones_;
  ThreadSurgeWatch thread_surge_;
  sim::Time up_since_ = 0;          // this life of the process began
  bool last_death_was_deploy_ = false;
  std::vector<double> uptimes_s_;   // seconds up before each death of its own
  sim::MetricsRegistry& metrics_;
  std::map<std::pair<std::string, std::string>, sim::Counter*> call_errors_;
};

}  // namespace

std::vector<sim::ParamSpec> machine_params() {
  // A machine's cores and scheduler and its kernel's port rules: the go-service's own
  // parameters of the same names, which a service on a machine takes from the machine.
  static const std::set<std::string, std::less<>> kNames = {
      "cores",           "core_sharing", "time_slice",  "port_range_low",
      "port_range_high", "time_wait",    "tcp_tw_reuse"};
  std::vector<sim::ParamSpec> out;
  for (sim::ParamSpec& p : go_service_params()) {
    if (kNames.contains(p.name)) out.push_back(std::move(p));
  }
  out.push_back(extensive(param("memory", ParamType::Size, "bytes", "0",
                      "the machine's memory for its processes (a node's allocatable): their RSS "
                      "together above it is the kernel's OOM killer, which kills the process "
                      "with the most RSS, not necessarily the one allocating; 0 = not modelled",
                      0, 1e15)));
  out.push_back(extensive(param("eviction_memory_available", ParamType::Size, "bytes", "100MiB",
                      "the kubelet's hard eviction threshold: memory.available (memory minus the "
                      "processes' RSS) under it evicts the process with the most RSS (its default "
                      "memory.available<100Mi on Linux, kubernetes.io Node-pressure Eviction); "
                      "0 = no eviction",
                      0, 1e15)));
  out.push_back(param("eviction_period", ParamType::Duration, "", "10s",
                      "how often the kubelet's eviction manager looks (evictionMonitoringPeriod, "
                      "a constant of pkg/kubelet/kubelet.go)",
                      1e6, 8.64e13));
  out.push_back(param("eviction_replacement", ParamType::Duration, "", "10s",
                      "from an eviction to its replacement pod running on this machine: the "
                      "Deployment's new pod created, scheduled and started (assumption: the image "
                      "cached, the node taken again; no CrashLoopBackOff)",
                      0, 8.64e13));
  return out;
}

ServiceKind go_service_kind() {
  return ServiceKind{
      .name = "go-service",
      .doc = "a Go service whose handlers are the steps of its `program:` and whose clients "
             "reach other services through the host's TCP stack (docs/scenarios.md, \"Writing a "
             "service in YAML\")",
      .params = go_service_params(),
      .endpoints = {},
      .build = [](World& w, const HostContext& c) -> std::unique_ptr<Instance> {
        return std::make_unique<GoService>(w, c);
      },
      .runs_program = true,
      .runs_on_machines = true,
      .report_panels = go_service_panels,
      .check_config =
          [](const HostContext& c) {
            if (c.params.count("port_range_low") > c.params.count("port_range_high")) {
              throw std::invalid_argument("port_range_low: above port_range_high");
            }
            go_config(c);
            if (c.program) {
              for_each_step(*c.program, [](const Step& s) {
                if (s.kind != StepKind::kUidAlloc) return;
                try {
                  allocator_config(s.params);
                } catch (const std::invalid_argument& e) {
                  throw std::invalid_argument("uid_alloc at " + s.where + ": " + e.what());
                }
              });
            }
            sink_config(c);
            logger_config(c);
            machine_net_sysctl(c.params, c.scale);
          },
  };
}

}  // namespace skysim::scenarios
