// The `dataplane` service kind: one Bluesky AppView data-plane host (models/dataplane) wired
// into a scenario. Every parameter is declared once here; `scale` shrinks the extensive ones
// (port range, idle pool, cache, heap, memory limit, Scylla share, log bandwidth) together so
// ratios — and so the dynamics — hold (docs/models/dataplane.md, "Scale").
#include "scenarios/kind_dataplane.hpp"

#include <algorithm>
#include <cmath>

#include "models/dataplane/data_plane_host.hpp"
#include "scenarios/go_runtime_params.hpp"
#include "scenarios/go_service_panels.hpp"
#include "scenarios/param_builder.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;
using namespace skysim::dataplane;

std::int64_t scaled(std::int64_t v, double scale, std::int64_t floor = 1) {
  return std::max<std::int64_t>(floor, std::llround(static_cast<double>(v) * scale));
}

std::vector<sim::ParamSpec> dataplane_params() {
  // The order of arguments keeps each declaration's settable flag next to its doc.
  auto p = [](std::string name, ParamType t, std::string unit, std::string def, std::string doc,
              bool can_set = false, std::optional<double> min = std::nullopt,
              std::optional<double> max = std::nullopt, std::vector<std::string> choices = {}) {
    sim::ParamSpec s = param(std::move(name), t, std::move(unit), std::move(def), std::move(doc),
                             min, max, std::move(choices));
    s.settable = can_set;
    return s;
  };
  std::vector<sim::ParamSpec> out = {
      // Handlers (domain.md §1.4, §4)
      p("get_post_record_limit", ParamType::Int, "goroutines", "-1",
        "errgroup SetLimit of GetPostRecord; -1 = none (the bug), 50 = the fix (§1.4)", true, -1,
        1e6),
      p("handler_limit", ParamType::Int, "goroutines", "50",
        "errgroup SetLimit of every other handler (§1.4)", true, -1, 1e6),
      p("max_batch", ParamType::Count, "URIs", "0",
        "what-if: reject GetPostRecord batches above this size at full scale (shrinks with scale, "
        "like the batches); 0 = no cap (as it was)",
        true, 0, 1e9),
      naming_clients(p("backfill_clients", ParamType::String, "", "batch-service",
                       "comma-separated clients whose URIs are cold (mostly cache misses; "
                       "assumption: a backfill); each must be a source's client")),
      // Go runtime (§3)
      p("cores", ParamType::Count, "", "16",
        "CPU cores of the host at full scale (assumption; not found, §12); the simulated process "
        "gets round(cores x scale), at least 1, like every other capacity",
        false, 1, 4096),
      p("gomaxprocs", ParamType::Count, "", "0",
        "GOMAXPROCS at full scale (scaled like cores); 0 = cores (Go default)", false, 0, 4096),
      p("gomemlimit", ParamType::Size, "bytes", "0",
        "GOMEMLIMIT at full scale; 0 = none (values not found, §1.4)", false, 0, 1e15),
      p("memory_limit", ParamType::Size, "bytes", "0",
        "container memory limit at full scale; RSS above it is an OOM kill; 0 = none. Settable: "
        "a new limit is checked at once (a fault hook, not a deploy)",
        true, 0, 1e15),
      p("baseline_live_heap", ParamType::Size, "bytes", "512MiB",
        "long-lived heap of the process at full scale (assumption: in-memory caches)", false, 0,
        1e15),
      p("cpu_per_uri", ParamType::Duration, "", "20us",
        "Go CPU to decode one post and build its reply (assumption)", true, 0, 1e9),
      p("garbage_per_uri", ParamType::Size, "bytes", "4KiB",
        "short-lived allocation per URI (assumption)", false, 0, 1e9),
      p("live_per_uri", ParamType::Size, "bytes", "1KiB",
        "heap held while a URI is in flight (assumption)", false, 0, 1e9),
      p("deploy_restarts", ParamType::Bool, "", "true",
        "a timeline change of code or config (dialer, limits, log policy, batch cap, idle pool) "
        "ships as a new build that replaces the process (assumption: container deploys)"),
      p("gc_paused", ParamType::Bool, "", "false",
        "fault hook: while true the Go process is stopped (a GC stop-the-world as long as the "
        "window; not a deploy)",
        true),
      p("conn_buffers", ParamType::Size, "bytes", "8KiB",
        "heap per open memcached connection: gomemcache's bufio.Reader and bufio.Writer, 4 KiB "
        "each (memcache.go getConn, bufio.defaultBufSize); 0 = not charged",
        false, 0, 1e9),
      // Kernel TCP (§2)
      p("port_lo", ParamType::Count, "", "32768", "ip_local_port_range low end (Linux default)",
        false, 1, 65535),
      p("port_hi", ParamType::Count, "", "60999",
        "ip_local_port_range high end at full scale (Linux default); the range shrinks with scale",
        false, 1, 65535),
      p("time_wait", ParamType::Duration, "", "60s", "TCP_TIMEWAIT_LEN (§2.2)", false, 1, 1e13),
      p("tw_reuse", ParamType::Int, "", "2", "net.ipv4.tcp_tw_reuse: 0, 1, 2 = loopback (§2.4)",
        false, 0, 2),
      p("dialer", ParamType::Enum, "", "fixed_source",
        "memcached source address: fixed_source 127.32.0.1 (as it was), random_loopback (the "
        "band-aid), default (no bind) (§1.3, §1.7)",
        true, std::nullopt, std::nullopt, {"fixed_source", "random_loopback", "default"}),
      p("bind_address_no_port", ParamType::Bool, "", "false",
        "IP_BIND_ADDRESS_NO_PORT on the fixed-source dialer (§2.3)"),
      p("max_tw_buckets", ParamType::Count, "sockets", "0",
        "net.ipv4.tcp_max_tw_buckets: above it a closing socket skips TIME_WAIT "
        "(TCPTimeWaitOverflow; older kernels logged 'TCP: time wait bucket table overflow'); "
        "0 = no cap. Machine-sized: 131072 on this test machine; not scaled",
        false, 0, 1e12),
      p("cache_backlog", ParamType::Count, "conns", "1024",
        "memcached -b listen backlog (memcached default 1024); the kernel caps it at somaxconn "
        "and a full accept queue drops SYNs; not scaled",
        false, 0, 1e9),
      p("somaxconn", ParamType::Count, "conns", "4096",
        "net.core.somaxconn (Linux default since 5.4); not scaled", false, 0, 1e9),
      p("scylla_hosts", ParamType::Count, "nodes", "3",
        "Scylla nodes the driver keeps a pool to (assumption: RF 3, §7.4); not scaled", false, 1,
        1000),
      p("scylla_conns", ParamType::Count, "conns", "2",
        "connections per node, dialled without bind (gocql NumConns default 2); 0 = the old "
        "socket-less stand-in; not scaled",
        false, 0, 1000),
      // memcached (§5)
      p("max_idle_conns", ParamType::Count, "conns", "1000",
        "gomemcache MaxIdleConns at full scale (Bluesky: 1000, §1.4)", true, 1, 1e7),
      p("cache_timeout", ParamType::Duration, "", "500ms", "gomemcache Timeout (default, §5)",
        false, 1, 1e12),
      p("linger_zero", ParamType::Bool, "", "false",
        "what-if: SO_LINGER 0 on surplus closes (RST, no TIME_WAIT, §2.5)"),
      p("memcached_down", ParamType::Bool, "", "false",
        "fault hook: while true the local memcached is down (dials refused); set back to false it "
        "restarts empty and old connections read EOF (a restart as long as the window)",
        true),
      p("memcached_slowdown", ParamType::Duration, "", "0s",
        "fault hook: extra worker time per request at the local memcached (a slow or swapping "
        "memcached; requests queue behind it and gomemcache's 500 ms Timeout fires); 0 = none",
        true, 0, 1e12),
      p("memcached_syn_loss", ParamType::Percent, "", "0%",
        "fault hook: share of SYNs to the local memcached lost; Linux retransmits a SYN only "
        "after the 1 s initial RTO (TCP_TIMEOUT_INIT), past the 500 ms dial timeout, so each "
        "loss is a connect timeout (stream <host>/memcached-syn-loss)",
        true, 0, 1),
      p("fd_limit", ParamType::Int, "fds", "0",
        "fault hook: the process's RLIMIT_NOFILE at full scale (scaled like the pools); dials "
        "once it holds that many descriptors (its sockets + 7 baseline, fd_limit.hpp) fail with "
        "EMFILE; 0 = none",
        true, 0, 1e9),
      p("cache_items", ParamType::Count, "items", "2M",
        "memcached capacity at full scale (assumption; size not published)", false, 1, 1e12),
      p("cache_max_connections", ParamType::Count, "conns", "1M",
        "memcached -c (assumption: raised far above the storm; §1 puts TIME_WAIT on the client)",
        false, 1, 1e9),
      // Logging (§1.6 #3, §1.8)
      p("log_policy", ParamType::Enum, "", "every",
        "every error a write(2) (as it was), sampled, rate_limited, or count (metrics only)", true,
        std::nullopt, std::nullopt, {"every", "sampled", "rate_limited", "count"}),
      p("log_write_lock", ParamType::Bool, "", "true",
        "writes to the log fd are serialised, as Go's internal/poll FD.Write does (one goroutine "
        "in write(2), the rest parked: one stranded M at most); false = every blocked write holds "
        "its own M, the account the PM gives (§1.6 #3)"),
      p("log_drain", ParamType::Double, "bytes/s", "20e6",
        "log pipe drain bandwidth at full scale (assumption: a busy container log driver)", false,
        0, 1e12),
      p("log_pipe_page", ParamType::Size, "bytes", "0",
        "Linux pipe buffer (one page, fs/pipe.c): room in a full log pipe comes a page at a "
        "time, so a blocked write waits for the reader to finish a page; 4KiB = Linux, as the "
        "testbed measures (docs/testbed.md); 0 = byte-granular room (the model before it)",
        false, 0, 1e9),
      p("log_drain_stalled", ParamType::Bool, "", "false",
        "fault hook: while true the log collector reads nothing from the pipe (a stalled "
        "container log driver); writers block once it is full and return, in order, as it "
        "drains again",
        true),
      p("log_line_bytes", ParamType::Size, "bytes", "330",
        "bytes per error line (the §1.5 JSON record)", false, 1, 1e6),
      // Scylla share (§7.6)
      p("scylla_concurrency", ParamType::Count, "reads", "512",
        "reads in flight to Scylla at full scale (assumption: the host's share of the cluster)",
        false, 1, 1e7),
      p("scylla_read_median", ParamType::Duration, "", "600us",
        "Scylla read median (assumption: like the ~600 µs write average, §7.6)", false, 1, 1e12),
      p("scylla_read_p99", ParamType::Duration, "", "15ms", "Scylla P99 (§7.6)", false, 1, 1e12),
      p("scylla_slow_node", ParamType::Double, "x", "1",
        "fault hook: reads the pool sends to Scylla node 0 take this many times their drawn "
        "time (one slow node of scylla_hosts; with scylla_conns 0, every read); 1 = none",
        true, 1, 1e6),
  };
  // The Go runtime's and the scheduler's, shared with go-service (go_runtime_params.hpp).
  for (sim::ParamSpec& s : go_runtime_params("2560")) out.push_back(std::move(s));
  return out;
}

logsink::LogPolicy log_policy_of(const std::string& s) {
  if (s == "every") return logsink::LogPolicy::kEveryError;
  if (s == "sampled") return logsink::LogPolicy::kSampled;
  if (s == "rate_limited") return logsink::LogPolicy::kRateLimited;
  return logsink::LogPolicy::kCountOnly;
}

DataPlaneConfig config_from(const HostContext& ctx) {
  const sim::ParamValues& v = ctx.params;
  const double s = ctx.scale;
  DataPlaneConfig c;
  c.name = ctx.path();
  c.get_post_record_limit = v.integer("get_post_record_limit");
  c.handler_limit = v.integer("handler_limit");
  // A cap is compared with request sizes, which shrink with scale (scale_by: size): scale it too.
  c.max_batch_uris = v.count("max_batch") > 0 ? scaled(v.count("max_batch"), s) : 0;
  c.go.name = ctx.path();
  c.go.cores = static_cast<int>(scaled(v.count("cores"), s));
  c.go.gomaxprocs = v.count("gomaxprocs") > 0 ? static_cast<int>(scaled(v.count("gomaxprocs"), s)) : 0;
  apply_go_runtime_params(v, c.go);
  c.go.gomemlimit_bytes = v.size_bytes("gomemlimit") > 0 ? scaled(v.size_bytes("gomemlimit"), s) : 0;
  c.go.container_memory_limit_bytes =
      v.size_bytes("memory_limit") > 0 ? scaled(v.size_bytes("memory_limit"), s) : 0;
  c.cache_client.conn_buffer_bytes = v.size_bytes("conn_buffers");
  c.baseline_live_heap_bytes = scaled(v.size_bytes("baseline_live_heap"), s, 0);
  c.cpu_per_uri = v.duration("cpu_per_uri");
  c.garbage_per_uri_bytes = v.size_bytes("garbage_per_uri");
  c.live_per_uri_bytes = v.size_bytes("live_per_uri");
  const auto lo = v.count("port_lo"), hi = v.count("port_hi");
  if (hi < lo) throw std::invalid_argument("dataplane: port_hi must be >= port_lo");
  c.net.port_lo = static_cast<std::uint16_t>(lo);
  c.net.port_hi = static_cast<std::uint16_t>(lo + scaled(hi - lo + 1, s) - 1);
  c.net.time_wait = v.duration("time_wait");
  c.net.tw_reuse = static_cast<int>(v.integer("tw_reuse"));
  c.dialer = parse_dialer_policy(v.choice("dialer"));
  c.bind_address_no_port = v.flag("bind_address_no_port");
  c.net.max_tw_buckets = static_cast<std::uint64_t>(v.count("max_tw_buckets"));
  c.cache_server.listen_backlog = static_cast<int>(v.count("cache_backlog"));
  c.cache_server.somaxconn = static_cast<int>(v.count("somaxconn"));
  c.scylla_pool.hosts = static_cast<int>(v.count("scylla_hosts"));
  c.scylla_pool.conns_per_host = static_cast<int>(v.count("scylla_conns"));
  c.cache_client.max_idle_conns = static_cast<int>(scaled(v.count("max_idle_conns"), s));
  c.cache_client.timeout = v.duration("cache_timeout");
  c.cache_client.port_scan_ns = std::llround(static_cast<double>(port_scan_cost(v)) / s);
  c.cache_client.linger_zero = v.flag("linger_zero");
  c.cache_server.capacity_items = static_cast<std::size_t>(scaled(v.count("cache_items"), s));
  c.cache_server.max_connections = static_cast<int>(
      std::min<std::int64_t>(v.count("cache_max_connections"), 1 << 30));
  c.logger.policy = log_policy_of(v.choice("log_policy"));
  c.logger.line_bytes = v.size_bytes("log_line_bytes");
  c.logger.serialize_writes = v.flag("log_write_lock");
  c.log_sink.drain_bytes_per_second = v.real("log_drain") * s;
  c.log_sink.page_bytes = v.size_bytes("log_pipe_page");
  c.scylla_concurrency = static_cast<int>(scaled(v.count("scylla_concurrency"), s));
  c.scylla_read_median = v.duration("scylla_read_median");
  c.scylla_read_p99 = v.duration("scylla_read_p99");
  // The key spaces shrink with the cache so the hit ratio is scale-invariant.
  c.hot_posts = static_cast<std::uint64_t>(scaled(200'000, s));
  c.cold_posts = static_cast<std::uint64_t>(scaled(50'000'000, s));
  return c;
}

class DataPlaneInstance final : public Instance {
 public:
  DataPlaneInstance(World& w, const HostContext& ctx)
      : Instance(ctx),
        host_(w.sim(), config_from(ctx)),
        backfill_clients_(ctx.params.string("backfill_clients")),
        deploy_restarts_(ctx.params.flag("deploy_restarts")),
        scale_(ctx.scale),
        metrics_(w.metrics()),
        datacenter_(ctx.datacenter) {
    sim::Labels host{{"dc", ctx.datacenter}, {"host", path()}};
    auto& m = w.metrics();
    auto& go = host_.go();
    // The fault hooks may also start on (a what-if from the first instant).
    if (ctx.params.flag("memcached_down")) host_.set_cache_down(true);
    if (ctx.params.flag("gc_paused")) host_.set_gc_paused(true);
    if (ctx.params.duration("memcached_slowdown") > 0) {
      set("memcached_slowdown", ctx.params.get("memcached_slowdown"));
    }
    if (ctx.params.fraction("memcached_syn_loss") > 0) {
      set("memcached_syn_loss", ctx.params.get("memcached_syn_loss"));
    }
    if (ctx.params.flag("log_drain_stalled")) host_.set_log_stalled(true);
    if (ctx.params.integer("fd_limit") > 0) set("fd_limit", ctx.params.get("fd_limit"));
    if (ctx.params.real("scylla_slow_node") != 1.0) {
      host_.set_scylla_slow(1, ctx.params.real("scylla_slow_node"));
    }
    m.gauge_fn("dataplane.up", host, [&go] { return go.alive() ? 1.0 : 0.0; });
    m.gauge_fn("go.threads", host, [&go] { return static_cast<double>(go.threads()); });
    m.gauge_fn("go.goroutines", host, [&go] { return static_cast<double>(go.goroutines()); });
    m.gauge_fn("go.heap_bytes", host, [&go] { return static_cast<double>(go.heap_alloc_bytes()); });
    m.gauge_fn("go.rss_bytes", host, [&go] { return static_cast<double>(go.rss_bytes()); });
    m.gauge_fn("go.gc_cpu_fraction", host, [&go] { return go.gc_cpu_fraction(); });
    m.gauge_fn("go.stw_last_ns", host, [&go] { return static_cast<double>(go.last_stw()); });
    m.gauge_fn("go.stw_peak_ns", host, [&go] { return static_cast<double>(go.peak_stw()); });
    m.gauge_fn("go.threads_peak", host,
               [this] { return static_cast<double>(host_.peak_threads()); });
    // Median minutes a process stayed up before it died (PM: "~30 minutes"); 0 = no death.
    m.gauge_fn("go.median_uptime_min", host, [this] {
      auto u = host_.uptimes_before_death();
      if (u.empty()) return 0.0;
      std::sort(u.begin(), u.end());
      return u[u.size() / 2] / 60.0;
    });
    // Running counts kept by the models: counters to every reader (per process for go.syscalls
    // and go.handoffs, which start again at a restart, as a Prometheus counter may).
    m.counter_fn("go.crashes", host, [&go] { return static_cast<double>(go.crashes()); });
    m.counter_fn("go.oom_kills", host, [&go] { return static_cast<double>(go.oom_kills()); });
    m.counter_fn("go.forced_stws", host, [&go] { return static_cast<double>(go.forced_stws()); });
    m.counter_fn("memcached.restarts", host,
               [this] { return static_cast<double>(host_.cache_restarts()); });
    auto& ns = host_.kernel();
    m.gauge_fn("tcp.time_wait", host, [&ns] { return static_cast<double>(ns.time_wait_count()); });
    m.counter_fn("tcp.time_wait_overflow", host, [&ns] {
      return static_cast<double>(ns.counters().time_wait_dropped_overflow);
    });
    const auto& st = host_.stats();
    m.counter_fn("memcached.bind_errors", host,
               [&st] { return static_cast<double>(st.bind_errors); });
    m.counter_fn("memcached.cache_errors", host,
               [&st] { return static_cast<double>(st.cache_errors); });
    m.counter_fn("dataplane.uris", host, [&st] { return static_cast<double>(st.uris); });
    m.counter_fn("dataplane.scylla_errors", host,
                 [&st] { return static_cast<double>(st.scylla_errors); });
    m.counter_fn("dataplane.scylla_reads", host,
               [&st] { return static_cast<double>(st.scylla_reads); });
    m.counter_fn("log.lines_written", host,
               [this] { return static_cast<double>(host_.logger().lines_written()); });
    m.counter_fn("log.errors", host, [this] { return static_cast<double>(host_.logger().errors()); });
    m.gauge_fn("log.writers_waiting", host,
               [this] { return static_cast<double>(host_.logger().writers_waiting()); });
    m.gauge_fn("go.ms_in_syscall", host, [&go] { return static_cast<double>(go.ms_in_syscall()); });
    m.counter_fn("go.syscalls", host, [&go] { return static_cast<double>(go.syscalls()); });
    m.counter_fn("go.handoffs", host, [&go] { return static_cast<double>(go.handoffs()); });
    // CPU starvation (HostCpu): threads wanting one of the host's cores, now and at most.
    m.gauge_fn("go.runnable_threads", host,
               [&go] { return static_cast<double>(go.runnable_threads()); });
    m.gauge_fn("go.runnable_threads_peak", host,
               [&go] { return static_cast<double>(go.runnable_threads_peak()); });
    m.gauge_fn("scylla.queued", host,
               [this] { return static_cast<double>(host_.scylla().queued()); });
  }

  void handle(Request r) override {
    auto done = [r](const RpcResult& res) mutable {
      r.complete(Response{res.ok, error_text(res.error)});
    };
    const std::int64_t uris = std::max<std::int64_t>(1, r.size_bytes);
    // Work per caller, not just calls: 40 batch requests outweigh 40,000 user requests here
    // (the per-client view the post-mortem lacked, domain.md §1.8).
    metrics_.counter("dataplane.uris_requested",
                     {{"client", r.client}, {"dc", datacenter_}, {"endpoint", r.endpoint}})
        .add(uris);
    RpcTag tag;  // only a trace reads it
    if (host_.go().simulation().tracer() != nullptr) tag = RpcTag{r.client, r.endpoint};
    if (r.endpoint == "GetPostRecord") {
      PostMix mix = lists_client(backfill_clients_, r.client) ? PostMix::kCold : PostMix::kHot;
      host_.get_post_record(uris, mix, std::move(done), std::move(tag));
    } else {
      host_.small_rpc(uris, std::move(done), std::move(tag));
    }
  }

  void set(std::string_view name, const sim::ParamValue& v) override {
    if (apply_build_change(name, v)) {
      if (deploy_restarts_) host_.deploy(std::string(name) + " = " + v.text);
    } else if (name == "memory_limit") {  // fault hooks: the running build stays
      host_.set_memory_limit(v.integer > 0 ? scaled(v.integer, scale_) : 0);
    } else if (name == "memcached_down") {
      host_.set_cache_down(v.integer != 0);
    } else if (name == "gc_paused") {
      host_.set_gc_paused(v.integer != 0);
    } else if (name == "memcached_slowdown") {
      host_.set_cache_slowdown(v.integer);
    } else if (name == "memcached_syn_loss") {
      fault_counters();
      host_.set_cache_syn_loss(v.number);
    } else if (name == "log_drain_stalled") {
      host_.set_log_stalled(v.integer != 0);
    } else if (name == "fd_limit") {
      if (!emfile_counter_) {
        emfile_counter_ = true;  // named on first use, as the SYN-loss counter
        metrics_.counter_fn("dataplane.emfile", {{"dc", datacenter_}, {"host", path()}},
                            [this] { return static_cast<double>(host_.emfile_errors()); });
      }
      host_.set_fd_limit(v.integer > 0 ? scaled(v.integer, scale_) : 0);
    } else if (name == "scylla_slow_node") {
      host_.set_scylla_slow(1, v.number);
    } else {
      Instance::set(name, v);
    }
  }

  // The SYN-loss fault's counter, named when it is first set (not before: a new series would
  // move the metrics of every run without it).
  void fault_counters() {
    if (syn_counter_) return;
    syn_counter_ = true;
    metrics_.counter_fn("memcached.syns_lost", {{"dc", datacenter_}, {"host", path()}}, [this] {
      return static_cast<double>(host_.cache_server().stats().syns_lost);
    });
  }

  // Code or config of the running build (what a deploy ships); false when `name` is not one.
  bool apply_build_change(std::string_view name, const sim::ParamValue& v) {
    if (name == "get_post_record_limit") {
      host_.set_get_post_record_limit(v.integer);
    } else if (name == "handler_limit") {
      host_.set_handler_limit(v.integer);
    } else if (name == "max_batch") {
      host_.set_max_batch_uris(v.integer > 0 ? scaled(v.integer, scale_) : 0);
    } else if (name == "dialer") {
      host_.set_dialer(parse_dialer_policy(v.text));
    } else if (name == "log_policy") {
      host_.set_log_policy(log_policy_of(v.text));
    } else if (name == "max_idle_conns") {
      host_.set_max_idle_conns(static_cast<int>(scaled(v.integer, scale_)));
    } else {
      return false;
    }
    return true;
  }

  void crash() override { host_.kill(); }
  void restart() override {}  // the Go process restarts itself after restart_delay

  std::vector<Invariant> invariants() override {
    return {
        {"sockets_consistent",
         [this] {
           try {
             host_.kernel().check_invariants();
             return std::string();
           } catch (const std::exception& e) {
             return std::string(e.what());
           }
         }},
        // Go's P/M/G accounting (every P in exactly one state, every M accounted for).
        {"go.runtime",
         [this] {
           return host_.go().invariants_hold() ? std::string()
                                               : std::string("P/M/G accounting is off");
         }},
        // The pool exists while the process lives (a dead process's client is gone).
        {"memcached.pool",
         [this] {
           return host_.go().alive() ? host_.cache_client().check_pool() : std::string();
         }},
        {"rpcs_accounted",
         [this] {
           const auto& st = host_.stats();
           auto answered = st.rpcs_ok + st.rpcs_unavailable + st.rpcs_crashed + st.rpcs_rejected;
           auto in_flight = static_cast<std::uint64_t>(host_.rpcs_in_flight());
           if (answered + in_flight != st.rpcs) {
             return "rpcs " + std::to_string(st.rpcs) + " != answered " +
                    std::to_string(answered) + " + in flight " + std::to_string(in_flight);
           }
           return std::string();
         }},
    };
  }

  std::vector<Milestone> milestones() const override {
    std::vector<Milestone> out;
    for (const auto& e : host_.events()) out.push_back(Milestone{e.at, e.what});
    return out;
  }

  DataPlaneHost& host() { return host_; }

 private:
  DataPlaneHost host_;
  std::string backfill_clients_;
  bool deploy_restarts_;
  double scale_;
  sim::MetricsRegistry& metrics_;
  bool syn_counter_ = false;
  bool emfile_counter_ = false;
  std::string datacenter_;
};

// A limit line per distinct value of a host's configuration (scenarios/go_service_panels.hpp).
std::vector<sim::PanelLimit> limit_lines(const std::vector<HostContext>& hosts,
                                         const std::string& what,
                                         double (*value)(const DataPlaneConfig&)) {
  return panel_limits(hosts, what, [value](const HostContext& h) { return value(config_from(h)); });
}

// The on-call view of the April 2026 outage (docs/april-2026.md): the series the post-mortem
// talks about, each against the limit it ran into. Limits are the hosts' configuration at the
// start of the run (a timeline change of them is not drawn).
std::vector<sim::ReportPanel> dataplane_panels(const std::vector<HostContext>& hosts) {
  using sim::PanelHow;
  auto threads = sim::ReportPanel{
      .title = "OS threads of the Go process (Ms + sysmon), simulated size (not scaled)",
      .series = {"go.threads"},
      .unit = "threads",
      .log_y = true,
      .limits = limit_lines(hosts, "max_threads", [](const DataPlaneConfig& c) {
        return static_cast<double>(c.go.max_threads);
      })};
  auto time_wait = sim::ReportPanel{
      .title = "TCP sockets in TIME_WAIT against the ephemeral port range (simulated size)",
      .series = {"tcp.time_wait"},
      .unit = "sockets",
      .limits = limit_lines(hosts, "port range", [](const DataPlaneConfig& c) {
        return static_cast<double>(c.net.port_hi - c.net.port_lo + 1);
      })};
  auto success = sim::ReportPanel{
      .title = "User requests answered within the deadline, per datacenter and interval",
      .series = {"user.requests.good", "user.requests.bad"},
      .unit = "success (%)",
      .how = PanelHow::kSharePercent};
  auto gomemlimit = limit_lines(hosts, "GOMEMLIMIT", [](const DataPlaneConfig& c) {
    return static_cast<double>(c.go.gomemlimit_bytes);
  });
  auto container = limit_lines(hosts, "container limit", [](const DataPlaneConfig& c) {
    return static_cast<double>(c.go.container_memory_limit_bytes);
  });
  gomemlimit.insert(gomemlimit.end(), container.begin(), container.end());
  auto memory = sim::ReportPanel{.title = "Process RSS against its memory limits (simulated size)",
                                 .series = {"go.rss_bytes"},
                                 .unit = "MiB",
                                 .divide_by = 1024.0 * 1024.0,
                                 .limits = std::move(gomemlimit)};
  auto gc = sim::ReportPanel{.title = "Last GC stop-the-world pause",
                             .series = {"go.stw_last_ns"},
                             .unit = "µs",
                             .divide_by = 1000,
                             .log_y = true};
  auto errors = sim::ReportPanel{
      .title = "Error log lines written and memcached bind errors",
      .series = {"log.lines_written", "memcached.bind_errors"},
      .unit = "per second",
      .how = PanelHow::kRate};
  auto deaths = sim::ReportPanel{.title = "OOM kills and crashes of the process (cumulative)",
                                 .series = {"go.oom_kills", "go.crashes"},
                                 .unit = "count"};
  return {threads, time_wait, success, memory, gc, errors, deaths};
}

}  // namespace

ServiceKind dataplane_kind() {
  return ServiceKind{
      .name = "dataplane",
      .doc = "Bluesky AppView data-plane host: Go process, local memcached, TCP stack, log pipe "
             "(domain.md §1)",
      .params = dataplane_params(),
      .endpoints = {"GetPostRecord", "GetActorProfile", "GetThread"},
      .build = [](World& w, const HostContext& ctx) -> std::unique_ptr<Instance> {
        return std::make_unique<DataPlaneInstance>(w, ctx);
      },
      .report_panels = dataplane_panels,
      .check_config = [](const HostContext& ctx) { config_from(ctx).validate(); }};
}

}  // namespace skysim::scenarios
