// The `memcached` kind: one memcached server process per host (models/memcached: worker
// threads in arrival order, an LRU of items, the connection limit, the listen backlog) for the
// gomemcache clients of go-services. It speaks memcached's protocol, not Requests: a `call`
// step cannot reach it, `cache_get`/`cache_set` steps do. On a shared machine (`machine:`) its
// worker threads share the machine's cores with the other processes' threads.
#include <memory>

#include "scenarios/host_address.hpp"
#include "scenarios/machine.hpp"
#include "scenarios/memcached_service.hpp"
#include "scenarios/param_builder.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;

std::vector<sim::ParamSpec> memcached_params() {
  return {
      extensive(param("capacity_items", ParamType::Count, "items", "1M",
                      "items the LRU holds (assumption: the post-mortem gives no size, "
                      "domain.md §1.4)",
                      1, 1e9)),
      param("service_time", ParamType::Duration, "", "5us",
            "worker time per get or set (assumption: 100-200k small ops/s per thread)", 1, 1e10),
      param("worker_threads", ParamType::Count, "threads", "4", "memcached -t (default 4)", 1,
            1024),
      param("max_connections", ParamType::Count, "connections", "1024",
            "memcached -c (default 1024): beyond it a new connection gets ERROR and is closed",
            1, 1e7),
      param("listen_backlog", ParamType::Count, "", "1024", "memcached -b (default 1024)", 1,
            1e6),
      param("somaxconn", ParamType::Count, "", "4096",
            "net.core.somaxconn (default 4096 since Linux 5.4)", 1, 1e6),
      param("listen", ParamType::Enum, "", "host",
            "host: the host's own address (10.x.y.z:11211), for clients on other hosts; "
            "loopback: 127.0.0.1:11211, a sidecar reached by its pod's go-service through "
            "`local: true` (the April data plane's memcached, domain.md §1.2)",
            std::nullopt, std::nullopt, {"host", "loopback"}),
      param("restart_delay", ParamType::Duration, "", "10s",
            "on a machine: after the kernel's OOM killer took it, the container restarts this "
            "much later, its cache empty (the kubelet's first back-off, Kubernetes pod "
            "lifecycle docs)",
            0, 1e15),
      settable(param("memcached_down", ParamType::Bool, "", "false",
                     "fault hook (memcached-restart): nothing listens; open connections read EOF")),
      settable(param("memcached_slowdown", ParamType::Duration, "", "0s",
                     "fault hook (memcached-slow): extra worker time per request", 0, 1e10)),
      settable(param("memcached_syn_loss", ParamType::Percent, "", "0%",
                     "fault hook (syn-drop): the share of SYNs to it lost on the way; the "
                     "client's 1 s SYN retransmit outlasts gomemcache's 500 ms dial timeout, so "
                     "each loss is a connect timeout",
                     0, 1)),
  };
}

memcached::ServerConfig server_config(const HostContext& ctx) {
  memcached::ServerConfig c;
  c.capacity_items = static_cast<std::size_t>(ctx.params.count("capacity_items"));
  c.service_time = ctx.params.duration("service_time");
  c.worker_threads = static_cast<int>(ctx.params.count("worker_threads"));
  c.max_connections = static_cast<int>(ctx.params.count("max_connections"));
  c.listen_backlog = static_cast<int>(ctx.params.count("listen_backlog"));
  c.somaxconn = static_cast<int>(ctx.params.count("somaxconn"));
  c.validate();
  return c;
}

constexpr std::uint16_t kMemcachedPort = 11211;

class MemcachedService final : public Instance {
 public:
  MemcachedService(World& w, const HostContext& ctx)
      : Instance(ctx),
        sim_(w.sim()),
        metrics_(w.metrics()),
        restart_delay_(ctx.params.duration("restart_delay")),
        server_(w.sim(),
                net::Endpoint{ctx.params.choice("listen") == "loopback"
                                  ? net::Ipv4::of(127, 0, 0, 1)
                                  : host_address(w, ctx.path()),
                              kMemcachedPort},
                server_config(ctx), ctx.path()) {
    if (!ctx.machine.empty()) {
      w.machine(ctx.machine).place(server_, [this](Machine::Kill k, sim::Duration replaced_after) {
        killed(k, replaced_after);
      });
    }
    if (ctx.params.flag("memcached_down")) server_.set_down(true);
    server_.set_extra_service_time(ctx.params.duration("memcached_slowdown"));
    if (ctx.params.fraction("memcached_syn_loss") > 0) {
      set("memcached_syn_loss", ctx.params.get("memcached_syn_loss"));
    }
    auto& m = w.metrics();
    const sim::Labels host = {{"host", path()}};
    const memcached::ServerStats& st = server_.stats();
    m.counter_fn("memcached.gets", host, [&st] { return double(st.gets); });
    m.counter_fn("memcached.get_hits", host, [&st] { return double(st.get_hits); });
    m.counter_fn("memcached.sets", host, [&st] { return double(st.sets); });
    m.counter_fn("memcached.evictions", host, [&st] { return double(st.evictions); });
    m.gauge_fn("memcached.curr_connections", host, [&st] { return double(st.curr_connections); });
    m.counter_fn("memcached.rejected_connections", host,
                 [&st] { return double(st.rejected_connections); });
    m.gauge_fn("memcached.items", host, [this] { return double(server_.items()); });
    m.gauge_fn("memcached.bytes", host, [this] { return double(server_.rss_bytes()); });
    m.counter_fn("memcached.oom_kills", host, [this] { return double(oom_kills_); });
    m.counter_fn("memcached.pod_evictions", host, [this] { return double(evictions_); });
  }

  memcached::Server& server() { return server_; }

  void handle(Request r) override {
    r.complete({false, "memcached_protocol"});  // the loader lets no call step get here
  }

  void set(std::string_view name, const sim::ParamValue& v) override {
    if (name == "memcached_down") {
      if (v.integer == 0 && server_.down()) {
        if (restarts_++ == 0) {  // named on first use, as memcached.syns_lost
          metrics_.counter_fn("memcached.restarts", {{"host", path()}},
                              [this] { return double(restarts_); });
        }
      }
      server_.set_down(v.integer != 0);
      set_up(v.integer == 0);
      return;
    }
    if (name == "memcached_slowdown") {
      server_.set_extra_service_time(v.integer);
      return;
    }
    if (name == "memcached_syn_loss") {
      if (syn_rng_ == nullptr) {
        // Named on first use, the stream and the counter: a new series would move the metrics
        // of every run without the fault.
        syn_rng_ = &sim_.stream("memcached/" + path() + "/syn_loss");
        metrics_.counter_fn("memcached.syns_lost", {{"host", path()}},
                            [this] { return double(server_.stats().syns_lost); });
      }
      server_.set_syn_loss(v.number, syn_rng_);
      return;
    }
    Instance::set(name, v);
  }
  void crash() override {
    Instance::crash();
    server_.set_down(true);
  }
  void restart() override {
    server_.set_down(false);
    Instance::restart();
  }
  std::vector<Milestone> milestones() const override { return milestones_; }

 private:
  // The machine's OOM killer took this process (SIGKILL): its items are gone, and the kubelet
  // starts the container again after restart_delay. Or the kubelet evicted its pod: the items
  // are gone too, and the replacement pod runs `replaced_after` later.
  void killed(Machine::Kill k, sim::Duration replaced_after) {
    const bool evicted = k == Machine::Kill::kEviction;
    ++(evicted ? evictions_ : oom_kills_);
    milestones_.push_back(
        {sim_.now(), (evicted ? "Evicted: The node was low on resource: memory (memcached), "
                              : "Out of memory: Killed process (memcached), ") +
                         std::to_string(server_.rss_bytes() >> 20) + " MiB of items"});
    crash();
    const std::uint64_t kill = ++kills_;
    sim_.call_at(sim_.now() + (evicted ? replaced_after : restart_delay_),
                 sim_.intern_kind("memcached.restart"), [this, kill] {
                   if (kill == kills_ && !up()) restart();
                 });
  }

  sim::Simulation& sim_;
  sim::MetricsRegistry& metrics_;
  sim::Duration restart_delay_;
  memcached::Server server_;
  std::uint64_t oom_kills_ = 0;
  std::uint64_t evictions_ = 0;
  std::uint64_t kills_ = 0;  // either: a restart is for the last one only
  std::vector<Milestone> milestones_;
  sim::Rng* syn_rng_ = nullptr;  // the syn-drop fault's draws, once it is first set
  std::uint64_t restarts_ = 0;   // the memcached-restart fault's ends (back, empty)
};

}  // namespace

memcached::Server* memcached_server_of(Instance* host) {
  auto* m = dynamic_cast<MemcachedService*>(host);
  return m ? &m->server() : nullptr;
}

ServiceKind memcached_kind() {
  return ServiceKind{
      .name = "memcached",
      .doc = "a memcached server per host (models/memcached) for go-services' gomemcache "
             "clients (cache_get / cache_set steps)",
      .params = memcached_params(),
      .endpoints = {},
      .build = [](World& w, const HostContext& c) -> std::unique_ptr<Instance> {
        return std::make_unique<MemcachedService>(w, c);
      },
      .runs_on_machines = true,
      .check_config = [](const HostContext& c) { server_config(c); },
  };
}

}  // namespace skysim::scenarios
