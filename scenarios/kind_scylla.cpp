// The `scylla` kind: a whole Scylla cluster (models/scylla: nodes x shards, each a Seastar
// reactor; the token ring; RF replicas and CL replies; Scylla's timeouts) as one service of a
// scenario, so any service — a go-service's client above all — can read and write it (issue 26:
// the cluster model as a part a scenario wires).
//
// A request that names no key (Request::key) picks a partition uniformly among `partitions`
// (a stand-in for a user's timeline); one that names a key reads or writes key mod partitions.
// `hot_partitions` of them are written by the rest of the fleet at `hot_partition_writes` each (the
// hyper-followed accounts of docs/fanout.md), so the shards that hold them are the hot ones, and a
// read that lands on one waits behind their work.
// With `hot_keys`, each request goes to a coordinator replica its client picks and that node's
// hot-key detector sees it (the hotkey policy of docs/fanout.md, models/fanout/hot_key_nodes.hpp):
// a reply says whether the key is hot there (Response::hot), and a fanout-fleet's rows to a hot
// key wait at their node for one coalesced write per key per coalesce_interval.
#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "models/fanout/hot_key_nodes.hpp"
#include "models/scylla/cluster.hpp"
#include "models/scylla/hot_shard_windows.hpp"
#include "scenarios/machine.hpp"
#include "scenarios/model_registry.hpp"
#include "scenarios/param_builder.hpp"
#include "scenarios/scylla_config.hpp"
#include "scenarios/scylla_service.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;

std::vector<sim::ParamSpec> scylla_params() {
  return {
      param("nodes", ParamType::Count, "", "16", "Scylla nodes (assumption, docs/models/scylla.md)",
            1, 1e4),
      param("shards_per_node", ParamType::Count, "", "24", "cores per node (assumption)", 1, 1024),
      param("replication_factor", ParamType::Count, "", "3", "RF (domain.md §7.4)", 1, 16),
      param("consistency", ParamType::Enum, "", "QUORUM", "write/read CL (§7.4; assumption)",
            std::nullopt, std::nullopt, {"ONE", "QUORUM", "LOCAL_QUORUM", "ALL"}),
      param("placement", ParamType::Enum, "", "token_ring",
            "token_ring (vnodes 256, §7.2-7.3) or shuffle_shard (§8.4)", std::nullopt,
            std::nullopt, {"token_ring", "shuffle_shard"}),
      param("partitions", ParamType::Count, "", "100k",
            "partitions a request picks from at random (assumption: one per user)", 1, 1e8),
      param("read_rows", ParamType::Count, "rows", "50",
            "rows one read returns (assumption: one timeline page)", 1, 1e6),
      param("background_writes", ParamType::Rate, "writes/s", "0/s",
            "the rest of the fleet's writes spread over every shard (§8.3: > 1M/s at busy "
            "times); simulated as a fraction background_scale of them",
            0, 1e9),
      param("background_scale", ParamType::Double, "", "0.1",
            "fraction of the background writes simulated, each carrying 1/scale of the work "
            "(per-shard utilisation is scale-invariant, docs/models/scylla.md)",
            1e-6, 1),
      param("hot_partitions", ParamType::Count, "", "0",
            "partitions the fleet writes at hot_partition_writes each (hyper-followed "
            "timelines; the first keys)",
            0, 1e6),
      param("hot_partition_writes", ParamType::Rate, "writes/s", "0/s",
            "write rate into each hot partition, simulated write by write", 0, 1e7),
      param("task_quota", ParamType::Duration, "", "500us",
            "Seastar's task quota (--task-quota-ms)", 1e3, 1e10),
      param("compaction_shares", ParamType::Double, "", "1000",
            "compaction scheduling group's shares; statement 1000 (Scylla main.cc)", 1, 1e4),
      param("write_timeout", ParamType::Duration, "", "2s",
            "write_request_timeout_in_ms (Scylla default 2000)", 1e6, 1e12),
      param("read_timeout", ParamType::Duration, "", "5s",
            "read_request_timeout_in_ms (Scylla default 5000)", 1e6, 1e12),
      param("speculative_retry", ParamType::Duration, "", "0",
            "a read whose CL replies have not all arrived this long after it was sent also goes "
            "to one more replica, the first CL replies answer it (Scylla's per-table "
            "speculative_retry; 0 = off; docs/fanout.md's shuffle_retry uses 10ms; "
            "counted in scylla.speculative_reads)",
            0, 1e12),
      param("hot_window", ParamType::Duration, "", "0",
            "every hot_window, the shards busier than 0.8 over it are hot (scylla.hot_shards_max, "
            "_mean, _distinct: docs/fanout.md's definition); 0 = not counted",
            0, 1e15),
      param("hot_keys", ParamType::Bool, "", "false",
            "hot-key detection per node, docs/fanout.md's hotkey policy "
            "(models/fanout/hot_key_nodes.hpp): each request goes to a coordinator replica the "
            "client picks (uniform, a token-aware driver's choice), whose node runs "
            "components/hotkey's detector over what it coordinates and marks a hot key's reply "
            "(Response::hot; a go-service call's hot_cache keeps it); a fanout-fleet row to a "
            "key hot at its node is buffered there and written with the node's other rows for "
            "the key once per coalesce_interval (scylla.hotkey_*)"),
      param("hot_key_hold", ParamType::Duration, "", "1s",
            "hot_keys: a key stays hot at a node this long after its last hot sample "
            "(assumption: the client cache's TTL, docs/fanout.md's hotkey_ttl)",
            1e3, 1e15),
      param("coalesce_interval", ParamType::Duration, "", "1s",
            "hot_keys: one coalesced write per hot key per node this often (assumption, "
            "docs/fanout.md)",
            1e3, 1e12),
      param("node_memory", ParamType::Size, "bytes", "0",
            "on machines: each node's memory (Seastar's --memory, allocated at start; "
            "scylla-operator sets it to the container's limit), counted in its machine's, so "
            "the kernel's OOM killer or the kubelet's eviction may take the node; 0 = not counted",
            0, 1e15),
      param("restart_delay", ParamType::Duration, "", "10s",
            "on machines: from the OOM killer taking a node to the node serving again (the "
            "kubelet's first back-off; Scylla's own start-up, commitlog replay and gossip are "
            "not modelled: an assumption that shortens it)",
            0, 8.64e13),
      settable(param("down_nodes", ParamType::Int, "nodes", "0",
                     "fault hook (scylla-down): the first n nodes are down", 0, 1e4)),
      settable(param("scylla_slow_node", ParamType::Double, "x", "1",
                     "fault hook (scylla-slow): node 0 this many times slower per task", 1, 1e6)),
  };
}

fanout::HotKeyNodesConfig hot_keys_config(const sim::ParamValues& v) {
  fanout::HotKeyNodesConfig c;  // the detector: Pelikan's defaults (domain.md §9.1)
  c.hold = v.duration("hot_key_hold");
  c.coalesce_interval = v.duration("coalesce_interval");
  c.validate();
  return c;
}

scylla::ScyllaConfig cluster_config(const HostContext& ctx) {
  scylla::ScyllaConfig sc = scylla_config_from(ctx.params, ctx.scale);
  sc.speculative_retry = ctx.params.duration("speculative_retry");
  sc.validate();
  return sc;
}

class ScyllaService final : public Instance, private scylla::WriteSink {
 public:
  ScyllaService(World& w, const HostContext& ctx)
      : Instance(ctx),
        sim_(w.sim()),
        cluster_(w.sim(), cluster_config(ctx), static_cast<std::uint32_t>(ctx.params.count("partitions")),
                 ctx.path()),
        keys_(w.sim().stream("scylla/" + ctx.path() + "/keys")),
        rows_(static_cast<std::uint32_t>(ctx.params.count("read_rows"))) {
    const sim::ParamValues& v = ctx.params;
    const auto hot = static_cast<std::uint32_t>(
        std::min<std::int64_t>(v.count("hot_partitions"), v.count("partitions")));
    for (std::uint32_t k = 0; k < hot; ++k) {
      cluster_.add_background_partition(k, v.rate_per_s("hot_partition_writes"));
    }
    if (v.flag("hot_keys")) {
      hot_keys_ = std::make_unique<fanout::HotKeyNodes>(
          sim_, cluster_, cluster_.partitions(), hot_keys_config(v),
          "scylla/" + ctx.path() + "/coordinator");
    }
    if (!ctx.machine.empty()) place_on_machines(w, ctx);
    if (v.integer("down_nodes") > 0) set("down_nodes", v.get("down_nodes"));
    if (v.real("scylla_slow_node") != 1.0) set("scylla_slow_node", v.get("scylla_slow_node"));
    auto& m = w.metrics();
    const sim::Labels host = {{"host", path()}};
    read_latency_ = &m.histogram("scylla.read_latency_ns", host);
    write_latency_ = &m.histogram("scylla.write_latency_ns", host);
    m.counter_fn("scylla.read_timeouts", host,
                 [this] { return double(cluster_.read_timeouts()); });
    m.counter_fn("scylla.write_timeouts", host,
                 [this] { return double(cluster_.write_timeouts()); });
    m.counter_fn("scylla.speculative_reads", host,
                 [this] { return double(cluster_.speculative_reads()); });
    m.counter_fn("scylla.unavailable", host, [this] { return double(cluster_.unavailable()); });
    m.counter_fn("scylla.degraded", host, [this] { return double(cluster_.degraded()); });
    m.gauge_fn("scylla.down_nodes", host, [this] { return double(cluster_.down_nodes()); });
    if (!machines_.empty()) {
      m.counter_fn("scylla.node_oom_kills", host, [this] { return double(oom_kills_); });
      m.counter_fn("scylla.node_evictions", host, [this] { return double(evictions_); });
    }
    m.gauge_fn("scylla.max_shard_ops", host,
               [this] { return double(cluster_.max_statement_ops()); });
    if (hot_keys_) add_hot_key_metrics(m, host);
    if (v.duration("hot_window") > 0) {
      hot_ = std::make_unique<scylla::HotShardWindows>(sim_, cluster_, v.duration("hot_window"),
                                                       "scylla.hot_window");
      m.gauge_fn("scylla.hot_shards_max", host, [this] { return double(hot_->max()); });
      m.gauge_fn("scylla.hot_shards_mean", host, [this] { return hot_->mean(); });
      m.gauge_fn("scylla.hot_shards_distinct", host, [this] { return double(hot_->distinct()); });
    }
  }

  void start(World&) override {
    if (hot_) hot_->start(sim_);
  }

  void handle(Request r) override {
    if (!up()) {
      r.complete({false, "crashed"});
      return;
    }
    // As a string_view, the 4-byte compare is inlined (std::string == "read" called memcmp on
    // every one of a composed fan-out's millions of writes: 0.7 % of its run).
    const bool read = std::string_view(r.endpoint) == "read";
    // A request that names an item reads or writes its partition (the cluster's token ring
    // spreads consecutive partitions over nodes); one that names none picks one at random.
    const auto key = r.key ? static_cast<scylla::PartitionKey>(*r.key % cluster_.partitions())
                           : static_cast<scylla::PartitionKey>(keys_.uniform_int(
                                 0, static_cast<std::int64_t>(cluster_.partitions()) - 1));
    const std::uint32_t rows = r.rows ? r.rows : rows_;  // the caller's, or a page
    // Under hot_keys the client picks the coordinator, whose node's detector sees the request
    // and whose reply says whether the key is hot there; else the driver picks.
    fanout::HotKeyNodes::Route route{scylla::ScyllaCluster::kDriverChoice, 0, false};
    if (hot_keys_) route = hot_keys_->route(key);
    const std::uint64_t tag = park(std::move(r), read, key, route.hot);
    if (read) {
      cluster_.read(key, rows, *this, tag, route.via);
    } else {
      cluster_.write(key, *this, tag, route.via);
    }
  }

  // Null unless hot_keys.
  fanout::HotKeyNodes* hot_keys() { return hot_keys_.get(); }

  void set(std::string_view name, const sim::ParamValue& v) override {
    if (name == "down_nodes") {
      if (v.integer > static_cast<std::int64_t>(cluster_.config().nodes)) {
        throw std::invalid_argument(path() + ": down_nodes " + v.text + " > nodes " +
                                    std::to_string(cluster_.config().nodes));
      }
      cluster_.set_down_nodes(static_cast<std::uint32_t>(v.integer));
      return;
    }
    if (name == "scylla_slow_node") {
      cluster_.set_slow_node(v.number);
      return;
    }
    Instance::set(name, v);
  }

  void crash() override {
    // Every node down at once: ops already taken wait for CL live replicas (the driver
    // retries), and new requests are refused while the service is marked down.
    Instance::crash();
    cluster_.set_down_nodes(cluster_.config().nodes);
  }
  void restart() override {
    cluster_.set_down_nodes(0);
    Instance::restart();
  }

  std::vector<Invariant> invariants() override {
    return {{"scylla.consistent", [this] { return cluster_.check_invariants(); }}};
  }

  scylla::ScyllaCluster& cluster() { return cluster_; }
  std::vector<Milestone> milestones() const override { return milestones_; }

 private:
  // Node j runs on machine j of the service's `machine:` (whose index its path ends with): its
  // shards pinned to shards_per_node of that machine's cores, its node_memory counted in the
  // machine's. A node the OOM killer or the kubelet takes is down (set_node_killed) until it
  // serves again: after restart_delay, or its replacement pod's delay.
  void place_on_machines(World& w, const HostContext& ctx) {
    const std::string base = ctx.machine.substr(0, ctx.machine.rfind('/') + 1);
    const std::uint32_t nodes = cluster_.config().nodes;
    const std::int64_t memory = ctx.params.size_bytes("node_memory");
    restart_delay_ = ctx.params.duration("restart_delay");
    node_kills_.assign(nodes, 0);
    for (std::uint32_t j = 0; j < nodes; ++j) {
      const std::string at = base + std::to_string(j);
      Machine* machine = nullptr;
      try {
        machine = &w.machine(at);
      } catch (const std::logic_error&) {
        throw std::invalid_argument(path() + ": node " + std::to_string(j) + " has no machine " +
                                    at + " (node j runs on machine j: the machine's count must be "
                                    "at least nodes, " + std::to_string(nodes) + ")");
      }
      machine->place_pinned(
          "scylla node " + std::to_string(j) + " of " + path(),
          static_cast<int>(cluster_.config().shards_per_node), memory,
          [this, j] { return !cluster_.node_killed(j); },
          [this, j](Machine::Kill k, sim::Duration replaced_after) {
            node_killed(j, k, replaced_after);
          });
      machines_.push_back(machine);
    }
  }
  void node_killed(std::uint32_t j, Machine::Kill k, sim::Duration replaced_after) {
    const bool evicted = k == Machine::Kill::kEviction;
    ++(evicted ? evictions_ : oom_kills_);
    milestones_.push_back(
        {sim_.now(), (evicted ? "Evicted: The node was low on resource: memory (scylla node "
                              : "Out of memory: Killed process (scylla node ") +
                         std::to_string(j) + ")"});
    cluster_.set_node_killed(j, true);
    const std::uint64_t kill = ++node_kills_[j];
    sim_.call_at(sim_.now() + (evicted ? replaced_after : restart_delay_),
                 sim_.intern_kind("scylla.node_restart"), [this, j, kill] {
                   if (kill != node_kills_[j]) return;
                   cluster_.set_node_killed(j, false);
                   machines_[j]->memory_changed();  // its memory is allocated again
                 });
  }

  std::vector<Machine*> machines_;  // node j's machine, when on machines
  std::vector<std::uint64_t> node_kills_;
  sim::Duration restart_delay_ = 0;
  std::uint64_t oom_kills_ = 0;
  std::uint64_t evictions_ = 0;
  std::vector<Milestone> milestones_;
  // A request in flight: how it answers, and whether it reads.
  struct Pending {
    std::function<void(const Response&)> done;
    scylla::PartitionKey key = 0;
    bool read = false;
    bool hot = false;  // hot_keys: the coordinator's answer
    bool used = false;
  };

  // A slot per request in flight, reused (the cluster answers each tag exactly once).
  std::uint64_t park(Request&& r, bool read, scylla::PartitionKey key, bool hot) {
    std::size_t i;
    if (!free_.empty()) {
      i = free_.back();
      free_.pop_back();
    } else {
      i = pending_.size();
      pending_.emplace_back();
    }
    Pending& p = pending_[i];
    p.done = std::move(r.done);
    p.key = key;
    p.read = read;
    p.hot = hot;
    p.used = true;
    return i;
  }
  // How the request answers, its slot freed first (the answer may start another request).
  Pending take(std::uint64_t tag) {
    Pending& p = pending_.at(tag);
    if (!p.used) throw std::logic_error("scylla service: tag answered twice");
    p.used = false;
    free_.push_back(static_cast<std::size_t>(tag));
    Pending out = std::move(p);
    p.done = nullptr;
    return out;
  }

  void on_done(sim::Simulation&, std::uint64_t tag, sim::Duration latency) override {
    const Pending p = take(tag);
    (p.read ? read_latency_ : write_latency_)->record(latency);
    if (hot_keys_ && !p.read) hot_keys_->applied(static_cast<std::uint32_t>(p.key));
    Response ok;
    ok.hot = p.hot;
    if (p.done) p.done(ok);
  }
  void on_timeout(sim::Simulation&, std::uint64_t tag, sim::Duration) override {
    const Pending p = take(tag);
    if (p.done) p.done(Response{false, p.read ? "read_timeout" : "write_timeout"});
  }

  // What the nodes coalesced and how long rows waited, which keys they flagged, and how stale
  // the hot-key caches of the clients reading here were (docs/fanout.md's hotkey figures).
  void add_hot_key_metrics(sim::MetricsRegistry& m, const sim::Labels& host) {
    const fanout::HotKeyNodes* n = hot_keys_.get();
    m.counter_fn("scylla.hotkey_coalesced_rows", host, [n] { return double(n->rows_coalesced()); });
    m.counter_fn("scylla.hotkey_batches", host, [n] { return double(n->batches()); });
    m.counter_fn("scylla.hotkey_direct_rows", host, [n] { return double(n->rows_direct()); });
    m.gauge_fn("scylla.hotkey_coalesce_delay_p99_ns", host,
               [n] { return double(n->coalesce_delay().quantile(0.99)); });
    m.gauge_fn("scylla.hotkey_coalesce_delay_mean_ns", host,
               [n] { return n->coalesce_delay().mean(); });
    m.gauge_fn("scylla.hotkey_keys_flagged", host, [n] { return double(n->flagged().size()); });
    m.counter_fn("scylla.hotkey_cache_hits", host, [n] { return double(n->cache_hits()); });
    m.counter_fn("scylla.hotkey_stale_reads", host, [n] { return double(n->stale_hits()); });
    m.counter_fn("scylla.hotkey_stale_rows", host, [n] { return double(n->stale_rows()); });
  }

  sim::Simulation& sim_;
  scylla::ScyllaCluster cluster_;
  sim::Rng& keys_;
  std::uint32_t rows_;
  std::vector<Pending> pending_;
  std::vector<std::size_t> free_;
  sim::Histogram* read_latency_ = nullptr;
  sim::Histogram* write_latency_ = nullptr;
  std::unique_ptr<scylla::HotShardWindows> hot_;  // null unless hot_window > 0
  std::unique_ptr<fanout::HotKeyNodes> hot_keys_;  // null unless hot_keys
};

}  // namespace

scylla::ScyllaCluster* scylla_cluster_of(Instance* host) {
  auto* s = dynamic_cast<ScyllaService*>(host);
  return s ? &s->cluster() : nullptr;
}

fanout::HotKeyNodes* scylla_hot_keys_of(Instance* host) {
  auto* s = dynamic_cast<ScyllaService*>(host);
  return s ? s->hot_keys() : nullptr;
}

ServiceKind scylla_kind() {
  return ServiceKind{
      .name = "scylla",
      .doc =
          "a Scylla cluster (models/scylla: Seastar shards, token ring, RF and CL, Scylla's "
          "timeouts) as one service; requests read or write a random partition, or the one their "
          "key names (a go-service call with key: cache)",
      .params = scylla_params(),
      .endpoints = {"read", "write"},
      .build = [](World& w, const HostContext& c) -> std::unique_ptr<Instance> {
        return std::make_unique<ScyllaService>(w, c);
      },
      .runs_on_machines = true,
      .check_config =
          [](const HostContext& c) {
            if (c.host_count != 1) {
              throw std::invalid_argument(
                  "a scylla service is one cluster: write hosts: 1 and set its size with nodes");
            }
            cluster_config(c);
            hot_keys_config(c.params);
            if (c.params.integer("down_nodes") > c.params.count("nodes")) {
              throw std::invalid_argument("down_nodes: more than nodes");
            }
          },
  };
}

}  // namespace skysim::scenarios
