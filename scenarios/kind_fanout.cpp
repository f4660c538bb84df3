// The `fanout` service kind: Bluesky's Following-feed fan-out (models/fanout) onto a sharded
// Scylla cluster (models/scylla) over a generated follow graph (models/social), wired into a
// scenario. One host = one whole system (graph, cluster, fan-out service). Endpoints:
//   post - the named celebrity posts; the request completes when its fan-out has finished;
//   read - a uniformly chosen user reads a page of their timeline.
// Registered in scenarios/builtin_models.cpp.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/fanout/background_posts.hpp"
#include "models/fanout/fanout_service.hpp"
#include "models/fanout/follow_growth.hpp"
#include "models/scylla/cluster.hpp"
#include "models/scylla/hot_shard_windows.hpp"
#include "scenarios/scylla_config.hpp"
#include "scenarios/scylla_service.hpp"
#include "scenarios/staleness_metrics.hpp"
#include "models/social/population.hpp"
#include "scenarios/follow_graph_params.hpp"
#include "scenarios/model_registry.hpp"
#include "scenarios/param_builder.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;

std::vector<sim::ParamSpec> fanout_params() {
  // Follow graph (docs/models/social.md): the same declaration as the follow-graph kind's.
  std::vector<sim::ParamSpec> specs = follow_graph_params();
  // The graph during the run (models/fanout/follow_growth.hpp): on by default.
  for (sim::ParamSpec& p : graph_growth_params("100/s", "true")) specs.push_back(std::move(p));
  std::vector<sim::ParamSpec> own = {
      param("cache_refresh", ParamType::Duration, "", "30s",
            "period of each fan-out instance's reload of the high-follow set (§8.3: 30 s)", 2e6,
            8.64e13),
      // Scylla (docs/models/scylla.md)
      param("cluster", ParamType::String, "", "",
            "a scylla service of the same datacenter, declared above this one, whose cluster "
            "the fan-out writes into instead of building its own (its size, CL and timeouts "
            "are that service's; this kind's Scylla parameters then go unused; "
            "docs/whole-system.md)"),
      param("nodes", ParamType::Count, "", "16", "Scylla nodes (assumption)", 1, 1e4),
      param("shards_per_node", ParamType::Count, "", "24", "cores per node (assumption)", 1, 1024),
      param("replication_factor", ParamType::Count, "", "3", "RF (§7.4)", 1, 16),
      param("consistency", ParamType::Enum, "", "QUORUM", "write/read CL (§7.4; assumption)",
            std::nullopt, std::nullopt, {"ONE", "QUORUM", "LOCAL_QUORUM", "ALL"}),
      param("placement", ParamType::Enum, "", "token_ring",
            "token_ring (vnodes 256, §7.2-7.3) or shuffle_shard (§8.4)", std::nullopt,
            std::nullopt, {"token_ring", "shuffle_shard"}),
      param("background_writes", ParamType::Rate, "writes/s", "500k/s",
            "the rest of the fleet's timeline writes (§8.3: > 1M/s at busy times)", 0, 1e9),
      param("background_scale", ParamType::Double, "", "0.1",
            "fraction of background writes simulated (x scenario scale), each 1/scale heavy",
            1e-6, 1),
      param("posts_per_followed_s", ParamType::Double, "1/s", "0.0037",
            "posts/s of each account a bot follows (assumption; sets bot timeline load: 0.0037 "
            "x 300k follows gives the write-up's steady write P99 ~15 ms, docs/fanout.md)",
            0, 1),
      // Fan-out (docs/fanout.md)
      param("policy", ParamType::Enum, "", "full",
            "full fan-out, lossy timelines (§8.3), fan-out-on-read for authors above "
            "on_read_threshold (§8.5), lossy_on_read (both), per_shard: those authors "
            "written once per shard, filtered at read; split: timelines split per split_follows "
            "follows, merged at read; shard_queue: a fan-out queue partitioned by shard, "
            "rate-limited per shard; detect_block / detect_limit: a detector flags accounts "
            "whose timelines get > detect_threshold writes/s and blocks or rate-limits their "
            "writes; shuffle_retry: shuffle-sharded replicas, reads retried on the set's "
            "other replica after retry_after; hotkey: each Scylla node detects hot keys "
            "(components/hotkey), hot reads served from the client's cache for hotkey_ttl, "
            "hot background rows coalesced per node every coalesce_interval "
            "(models/fanout/policies/)",
            std::nullopt, std::nullopt,
            {"full", "lossy", "on_read", "lossy_on_read", "per_shard", "split", "shard_queue",
             "detect_block", "detect_limit", "shuffle_retry", "hotkey"}),
      param("reasonable_limit", ParamType::Count, "follows", "2000", "lossy limit (§8.3)", 1,
            1e9),
      param("page_size", ParamType::Count, "followers", "10k", "§8.2", 1, 1e8),
      param("concurrency", ParamType::Count, "writes", "1000", "§8.2", 1, 1e7),
      param("on_read_threshold", ParamType::Count, "followers", "1M",
            "policies on_read, lossy_on_read, per_shard: authors with at least this many followers are merged at read "
            "time (assumption: Twitter's threshold is unpublished, §8.5)", 1, 4e9),
      param("split_follows", ParamType::Count, "follows", "1000",
            "policy split: follows per sub-timeline (the write-up's discussion: 1,000)", 1, 1e9),
      param("shard_queue_rate", ParamType::Rate, "writes/s", "2000/s",
            "policy shard_queue: each shard lane's rate limit (assumption: ~4 % of a shard)", 1,
            1e9),
      param("shard_queue_in_flight", ParamType::Count, "writes", "32",
            "policy shard_queue: writes outstanding per shard lane (assumption)", 1, 1e6),
      param("detect_window", ParamType::Duration, "", "10s",
            "policies detect_*: the detector's counting window (assumption)", 1e6, 8.64e13),
      param("detect_threshold", ParamType::Rate, "writes/s", "100/s",
            "policies detect_*: timeline writes/s above which an account is flagged "
            "(assumption: hyper-followers get 'hundreds a second', §8.1)", 1e-3, 1e9),
      param("detect_limit", ParamType::Rate, "writes/s", "10/s",
            "policy detect_limit: a flagged account's timeline writes/s (assumption)", 1e-3,
            1e9),
      param("retry_after", ParamType::Duration, "", "10ms",
            "policy shuffle_retry: a read retries on the shuffle set's other replica after "
            "this long (assumption)", 1e3, 1e11),
      param("hot_window", ParamType::Duration, "", "10s",
            "window over which shard utilisation is measured; >= 0.8 busy is hot (docs)",
            1e6, 1e15),
      param("hotkey_cache", ParamType::Bool, "", "false",
            "hot-key detection + client caching on reads (§9)"),
      param("hotkey_ttl", ParamType::Duration, "", "1s", "client cache TTL (assumption, §9.2)",
            1, 1e15),
      param("coalesce_interval", ParamType::Duration, "", "1s",
            "policy hotkey: one coalesced write per hot key per node this often (assumption)",
            1e3, 1e12),
      param("task_quota", ParamType::Duration, "", "500us",
            "Seastar's task quota: long work yields to other tasks this often (--task-quota-ms)",
            1e3, 1e10),
      param("compaction_shares", ParamType::Double, "", "1000",
            "compaction scheduling group's shares; statement 1000 (Scylla main.cc)", 1, 1e4),
      param("write_timeout", ParamType::Duration, "", "2s",
            "write_request_timeout_in_ms (Scylla default 2000)", 1e6, 1e12),
      param("read_timeout", ParamType::Duration, "", "5s",
            "read_request_timeout_in_ms (Scylla default 5000)", 1e6, 1e12),
  };
  specs.insert(specs.end(), own.begin(), own.end());
  // Fault hook (fuzz, timeline `set`): the first n Scylla nodes are down; ops short of CL
  // live replicas wait until enough are back (docs/models/scylla.md, "Nodes down").
  sim::ParamSpec down = param("down_nodes", ParamType::Int, "nodes", "0",
                              "Scylla nodes down (the first n); settable mid-run", 0, 1e4);
  down.settable = true;
  specs.push_back(down);
  // Fault hook (the `scylla-slow` fault, like the data plane's): node 0's shards need this many
  // times their drawn CPU per task (docs/models/scylla.md, "A slow node").
  sim::ParamSpec slow = param("scylla_slow_node", ParamType::Double, "x", "1",
                              "Scylla node 0 this many times slower per task; 1 = none", 1, 1e6);
  slow.settable = true;
  specs.push_back(slow);
  return specs;
}

class FanoutInstance final : public Instance {
 public:
  FanoutInstance(World& w, const HostContext& ctx) : Instance(ctx), sim_(w.sim()) {
    const sim::ParamValues& v = ctx.params;
    graph_ = draw_follow_graph(sim_, path(), v, population_spec(v));
    celebrity_ = graph_->id_of("celebrity");

    scylla::ScyllaConfig sc = scylla_config_from(v, ctx.scale);
    fanout::FanoutConfig fc;
    fc.policy = fanout::parse_fanout_policy(v.choice("policy"));
    fc.reasonable_limit = static_cast<std::uint64_t>(v.count("reasonable_limit"));
    fc.page_size = static_cast<std::uint32_t>(v.count("page_size"));
    fc.concurrency = static_cast<std::uint32_t>(v.count("concurrency"));
    fc.on_read_threshold = static_cast<std::uint32_t>(v.count("on_read_threshold"));
    fc.hotkey_cache = v.flag("hotkey_cache");
    fc.hotkey_ttl = v.duration("hotkey_ttl");
    fc.coalesce_interval = v.duration("coalesce_interval");
    fc.cache_refresh = v.duration("cache_refresh");
    fc.split_follows = static_cast<std::uint32_t>(v.count("split_follows"));
    fc.shard_queue.rate_per_s = v.rate_per_s("shard_queue_rate");
    fc.shard_queue.in_flight = static_cast<std::uint32_t>(v.count("shard_queue_in_flight"));
    fc.detector.window = v.duration("detect_window");
    fc.detector.threshold_per_s = v.rate_per_s("detect_threshold");
    fc.detector.limit_per_s = v.rate_per_s("detect_limit");
    fc.retry_after = v.duration("retry_after");
    if (const std::string shared = v.string("cluster"); !shared.empty()) {
      cluster_ = shared_cluster(w, ctx, shared);  // its config, its faults
      // Both would reset the cluster's utilisation window, each cutting the other's windows.
      if (w.find(ctx.datacenter + "/" + shared + "/0")->context().params.duration("hot_window") >
          0) {
        throw std::invalid_argument("cluster: the scylla service '" + shared +
                                    "' counts hot shards itself (its hot_window): set it to 0 "
                                    "there, this fanout counts them over the same cluster");
      }
      const std::uint32_t needed = fanout::FanoutService::partitions_needed(*graph_, fc);
      if (cluster_->partitions() < needed) {
        throw std::invalid_argument("cluster: the scylla service '" + shared + "' holds " +
                                    std::to_string(cluster_->partitions()) +
                                    " partitions; this fan-out's graph needs " +
                                    std::to_string(needed) + ": set its partitions: to at least that");
      }
    } else {
      fanout::configure_cluster_for(fc.policy, fc.retry_after, sc);
      own_cluster_ = std::make_unique<scylla::ScyllaCluster>(
          sim_, sc, fanout::FanoutService::partitions_needed(*graph_, fc), path() + "/scylla");
      cluster_ = own_cluster_.get();
      if (v.integer("down_nodes") > 0) set("down_nodes", v.get("down_nodes"));
      if (v.real("scylla_slow_node") != 1.0) set("scylla_slow_node", v.get("scylla_slow_node"));
    }
    service_ = std::make_unique<fanout::FanoutService>(sim_, *cluster_, *graph_, fc);
    service_->set_trace_name(path());
    posts_per_followed_s_ = v.real("posts_per_followed_s");
    fanout::FollowGrowthConfig gc = growth_config(v, *graph_);
    gc.posts_per_followed_s = posts_per_followed_s_;
    gc.background_min_follows = kHyperMinFollows;
    gc.background_installed = posts_per_followed_s_ > 0;
    growth_ = std::make_unique<fanout::FollowGrowth>(sim_, *cluster_, *graph_, *service_, gc);
    service_->set_page_filter(*growth_);  // the production filter, audited for staleness
    reader_rng_ = &sim_.stream(path() + "/readers");

    const sim::Labels labels{{"host", path()}};
    post_duration_ = &w.metrics().histogram("fanout.post_duration", labels);
    read_latency_ = &w.metrics().histogram("fanout.read_latency", labels);
    w.metrics().gauge_fn("fanout.page_p99_ns", labels, [this] {
      return static_cast<double>(service_->page_duration().quantile(0.99));
    });
    w.metrics().gauge_fn("fanout.write_p99_ns", labels, [this] {
      return static_cast<double>(cluster_->write_latency().quantile(0.99));
    });
    // What each policy costs: writes on the write path, partitions read on the read path,
    // and what the lossy filter took from the users it thins (docs/fanout.md).
    w.metrics().gauge_fn("fanout.db_reads_per_read", labels, [this] {
      return reads_ ? static_cast<double>(db_reads_) / static_cast<double>(reads_) : 0.0;
    });
    w.metrics().gauge_fn("fanout.hot_shards_max", labels,
                         [this] { return static_cast<double>(hot_->max()); });
    w.metrics().gauge_fn("fanout.hot_shards_mean", labels, [this] { return hot_->mean(); });
    w.metrics().gauge_fn("fanout.hot_shards_distinct", labels,
                         [this] { return static_cast<double>(hot_->distinct()); });
    w.metrics().counter_fn("fanout.timeline_writes", labels,
                         [this] { return static_cast<double>(service_->timeline_writes()); });
    w.metrics().counter_fn("fanout.write_timeouts", labels, [this] {
      return static_cast<double>(service_->write_timeouts());
    });
    // The cluster's own counters, unless a scylla service of the scenario owns the cluster
    // and reports them (`cluster:`).
    if (own_cluster_) {
      w.metrics().counter_fn("scylla.unavailable", labels,
                           [this] { return static_cast<double>(cluster_->unavailable()); });
      w.metrics().counter_fn("scylla.degraded", labels,
                           [this] { return static_cast<double>(cluster_->degraded()); });
      w.metrics().gauge_fn("scylla.down_nodes", labels,
                           [this] { return static_cast<double>(cluster_->down_nodes()); });
      w.metrics().counter_fn("scylla.write_timeouts", labels, [this] {
        return static_cast<double>(cluster_->write_timeouts());
      });
      w.metrics().counter_fn("scylla.read_timeouts", labels, [this] {
        return static_cast<double>(cluster_->read_timeouts());
      });
    }
    w.metrics().counter_fn("fanout.list_writes", labels,
                         [this] { return static_cast<double>(service_->list_writes()); });
    w.metrics().gauge_fn("fanout.delivered_fraction", labels, [this] {
      const auto offered = service_->writes_offered();
      return offered ? static_cast<double>(service_->timeline_writes()) /
                           static_cast<double>(offered)
                     : 1.0;
    });
    // Staleness of the high-follow cache (docs/fanout.md, "The graph during a run"), per class.
    add_staleness_metrics(w.metrics(), path(), [this] { return std::vector{&growth_->audit()}; });
    // What the graph draw gave (a re-drawn graph differs in it; a pinned one does not).
    w.metrics().gauge_fn("fanout.graph_edges", labels,
                         [this] { return static_cast<double>(graph_->edges()); });
    w.metrics().counter_fn("fanout.follows_made", labels,
                           [this] { return static_cast<double>(growth_->follows_made()); });
    w.metrics().gauge_fn("fanout.grower_delivered_fraction", labels,
                         [this] { return growth_->grower_delivered_fraction(); });
    w.metrics().gauge_fn("fanout.grower_exact_fraction", labels,
                         [this] { return growth_->grower_exact_fraction(); });
    for (social::UserId u = 0; u < graph_->users(); ++u) {
      if (graph_->follow_count(u) > fc.reasonable_limit) {
        above_limit_.push_back(u);  // the only users a lossy filter can thin
      }
    }
    w.metrics().gauge_fn("fanout.worst_user_delivered_fraction", labels, [this] {
      double worst = 1.0;
      for (social::UserId u : above_limit_) {
        if (service_->offered(u) > 0) {
          worst = std::min(worst, static_cast<double>(service_->delivered(u)) /
                                      static_cast<double>(service_->offered(u)));
        }
      }
      return worst;
    });
    bot_.assign(graph_->users(), 0);
    for (const auto& [id, name] : graph_->named()) {
      bot_[id] = name.rfind("bot/", 0) == 0 ? 1 : 0;
    }
    add_policy_costs(w, labels);
    hot_ = std::make_unique<scylla::HotShardWindows>(sim_, *cluster_, v.duration("hot_window"),
                                                     "fanout.hot_window");
  }

  ~FanoutInstance() override {
    if (!sim_.shutting_down()) {
      sim_.shutdown();  // page timers and in-flight writes point into the models below
    }
  }

  void start(World&) override {
    service_->start();
    if (posts_per_followed_s_ > 0) {
      service_->install_hyperfollower_background(kHyperMinFollows, posts_per_followed_s_);
    }
    growth_->start();
    hot_->start(sim_);
  }

  void handle(Request r) override {
    if (!up()) {
      r.complete({false, "crashed"});
      return;
    }
    auto req = std::make_shared<Request>(std::move(r));
    if (req->endpoint == "post") {
      service_->post(celebrity_, [this, req](const fanout::PostReport& p) {
        post_duration_->record(p.duration);
        req->complete({true, ""});
      });
      return;
    }
    const auto reader =
        static_cast<std::uint32_t>(reader_rng_->uniform_int(0, graph_->users() - 1));
    service_->read_timeline(reader, [this, req](const fanout::ReadReport& rr) {
      read_latency_->record(rr.latency);
      db_reads_ += rr.db_reads;
      rows_read_ += rr.rows_read;
      merged_ += rr.merged;
      cache_hits_ += rr.cache_hits;
      ++reads_;
      req->complete({true, ""});
    });
  }

  std::vector<Invariant> invariants() override {
    return {{"fanout.delivered-le-offered", [this] { return service_->delivery_error(); }},
            {"fanout.kept-ge-loss-factor", [this] { return service_->keep_bound_error(); }},
            {"scylla.consistent", [this] { return cluster_->check_invariants(); }}};
  }

  void finish(World&) override { service_->stop(); }

  void set(std::string_view name, const sim::ParamValue& v) override {
    if (!own_cluster_ && (name == "down_nodes" || name == "scylla_slow_node")) {
      throw std::invalid_argument(path() + ": its cluster is the scylla service '" +
                                  context().params.string("cluster") + "'s: set " +
                                  std::string(name) + " there");
    }
    if (name == "down_nodes") {
      if (v.integer > static_cast<std::int64_t>(cluster_->config().nodes)) {
        throw std::invalid_argument(path() + ": down_nodes " + v.text + " > nodes " +
                                    std::to_string(cluster_->config().nodes));
      }
      cluster_->set_down_nodes(static_cast<std::uint32_t>(v.integer));
      return;
    }
    if (name == "scylla_slow_node") {
      cluster_->set_slow_node(v.number);
      return;
    }
    Instance::set(name, v);
  }

 private:
  // What a policy costs beside its latencies (docs/fanout.md, "Policies"): rows stored by the
  // simulated fan-outs, and the delivered fraction per user class -- the hyper-following
  // accounts (follows > reasonable_limit, the only ones a lossy filter thins) and everyone
  // else -- over the celebrity's fan-outs and the hyper-followers' background posts together.
  // Posts merged at read time are neither offered nor lost.
  void add_policy_costs(World& w, const sim::Labels& labels) {
    w.metrics().counter_fn("fanout.storage_rows", labels, [this] {
      const fanout::BackgroundPosts* bg = service_->background();
      return static_cast<double>(service_->timeline_writes() + service_->list_writes() +
                                 (bg ? bg->delivered() : 0));
    });
    w.metrics().gauge_fn("fanout.rows_read_per_read", labels, [this] {
      return reads_ ? static_cast<double>(rows_read_) / static_cast<double>(reads_) : 0.0;
    });
    w.metrics().gauge_fn("fanout.retries_per_read", labels, [this] {
      return reads_ ? static_cast<double>(cluster_->speculative_reads()) /
                          static_cast<double>(reads_)
                    : 0.0;
    });
    w.metrics().gauge_fn("fanout.merges_per_read", labels, [this] {
      return reads_ ? static_cast<double>(merged_) / static_cast<double>(reads_) : 0.0;
    });
    add_queue_and_detector_costs(w, labels);
    add_hotkey_costs(w, labels);
    w.metrics().gauge_fn("fanout.delivered_fraction_hyper", labels,
                         [this] { return class_delivered(true); });
    w.metrics().gauge_fn("fanout.delivered_fraction_ordinary", labels,
                         [this] { return class_delivered(false); });
  }
  // shard_queue: each write's wait in its shard lane. detect_*: who was flagged, how long after
  // its first observed write, and how many of them follow no more than reasonable_limit
  // (false positives: not hyper-followers by the write-up's definition). 0 under the others.
  void add_queue_and_detector_costs(World& w, const sim::Labels& labels) {
    w.metrics().gauge_fn("fanout.queue_delay_p99_ns", labels, [this] {
      const fanout::ShardQueue* q = service_->shard_queue();
      return q ? static_cast<double>(q->delay().quantile(0.99)) : 0.0;
    });
    w.metrics().gauge_fn("fanout.queue_delay_mean_ns", labels, [this] {
      const fanout::ShardQueue* q = service_->shard_queue();
      return q ? q->delay().mean() : 0.0;
    });
    w.metrics().gauge_fn("fanout.queue_max_depth", labels, [this] {
      const fanout::ShardQueue* q = service_->shard_queue();
      return q ? static_cast<double>(q->max_depth()) : 0.0;
    });
    w.metrics().gauge_fn("fanout.detect_flagged", labels, [this] {
      const fanout::HyperFollowerDetector* d = service_->hyper_detector();
      return d ? static_cast<double>(d->flagged().size()) : 0.0;
    });
    // Per flagged account: a false positive (follows <= reasonable_limit) or one of the bots.
    w.metrics().gauge_fn("fanout.detect_false_positives", labels, [this] {
      return detected([this](const fanout::HyperFollowerDetector::Flag& f) {
        return graph_->follow_count(f.user) <= service_->config().reasonable_limit ? 1.0 : 0.0;
      });
    });
    w.metrics().gauge_fn("fanout.detect_bots_flagged", labels, [this] {
      return detected([this](const fanout::HyperFollowerDetector::Flag& f) {
        return bot_[f.user] ? 1.0 : 0.0;
      });
    });
    w.metrics().gauge_fn("fanout.detect_delay_mean_ns", labels, [this] {
      const auto* d = service_->hyper_detector();
      const double n = d ? static_cast<double>(d->flagged().size()) : 0.0;
      return n > 0 ? detected([](const fanout::HyperFollowerDetector::Flag& f) {
        return static_cast<double>(f.at - f.first_seen);
      }) / n
                   : 0.0;
    });
    w.metrics().gauge_fn("fanout.detect_delay_max_ns", labels, [this] {
      const fanout::HyperFollowerDetector* d = service_->hyper_detector();
      sim::Duration worst = 0;
      for (const auto& f : d ? d->flagged() : no_flags_) {
        worst = std::max(worst, f.at - f.first_seen);
      }
      return static_cast<double>(worst);
    });
    w.metrics().counter_fn("fanout.detect_dropped", labels, [this] {
      const fanout::HyperFollowerDetector* d = service_->hyper_detector();
      return d ? static_cast<double>(d->dropped()) : 0.0;
    });
  }
  // hotkey: what the client's cache served and how stale, what the nodes coalesced and how long
  // rows waited, who the nodes' detectors flagged; and the busiest shard's operation count
  // (every policy). 0 under the policies without per-node hot keys.
  void add_hotkey_costs(World& w, const sim::Labels& labels) {
    if (own_cluster_) {
      w.metrics().gauge_fn("scylla.max_shard_ops", labels, [this] {
        return static_cast<double>(cluster_->max_statement_ops());
      });
    }
    w.metrics().gauge_fn("fanout.cache_hits_per_read", labels, [this] {
      return reads_ ? static_cast<double>(cache_hits_) / static_cast<double>(reads_) : 0.0;
    });
    const auto nodes_metric = [&](const char* name, auto f) {
      w.metrics().gauge_fn(name, labels, [this, f] {
        const fanout::HotKeyNodes* n = service_->hot_key_nodes();
        return n ? static_cast<double>(f(*n)) : 0.0;
      });
    };
    nodes_metric("fanout.hotkey_stale_reads", [](const fanout::HotKeyNodes& n) { return n.stale_hits(); });
    nodes_metric("fanout.hotkey_stale_rows", [](const fanout::HotKeyNodes& n) { return n.stale_rows(); });
    nodes_metric("fanout.hotkey_coalesced_rows",
                 [](const fanout::HotKeyNodes& n) { return n.rows_coalesced(); });
    nodes_metric("fanout.hotkey_batches", [](const fanout::HotKeyNodes& n) { return n.batches(); });
    nodes_metric("fanout.hotkey_direct_rows",
                 [](const fanout::HotKeyNodes& n) { return n.rows_direct(); });
    nodes_metric("fanout.hotkey_coalesce_delay_p99_ns", [](const fanout::HotKeyNodes& n) {
      return n.coalesce_delay().quantile(0.99);
    });
    nodes_metric("fanout.hotkey_coalesce_delay_mean_ns",
                 [](const fanout::HotKeyNodes& n) { return n.coalesce_delay().mean(); });
    nodes_metric("fanout.hotkey_keys_flagged",
                 [](const fanout::HotKeyNodes& n) { return n.flagged().size(); });
    // Flagged timelines of accounts at or below reasonable_limit (not hyper-followers), and the
    // bots among the flagged; the bots' mean first-flag instant.
    const auto at_most_limit = [this](std::uint32_t key) {
      return key < graph_->users() &&
             graph_->follow_count(key) <= service_->config().reasonable_limit;
    };
    const auto bot = [this](std::uint32_t key) { return key < graph_->users() && bot_[key]; };
    nodes_metric("fanout.hotkey_false_positives",
                 [at_most_limit](const fanout::HotKeyNodes& n) { return n.flagged_count(at_most_limit); });
    nodes_metric("fanout.hotkey_bots_flagged",
                 [bot](const fanout::HotKeyNodes& n) { return n.flagged_count(bot); });
    nodes_metric("fanout.hotkey_bot_flag_mean_ns",
                 [bot](const fanout::HotKeyNodes& n) { return n.mean_first_flag(bot); });
  }
  // The sum of `f` over the detector's flags (0 without a detector).
  template <class F>
  double detected(F f) const {
    const fanout::HyperFollowerDetector* d = service_->hyper_detector();
    double sum = 0;
    for (const auto& flag : d ? d->flagged() : no_flags_) {
      sum += f(flag);
    }
    return sum;
  }
  double class_delivered(bool hyper) const {
    const fanout::BackgroundPosts* bg = service_->background();
    std::uint64_t offered = 0;
    std::uint64_t delivered = 0;
    for (social::UserId u : above_limit_) {
      offered += service_->offered(u) + (bg ? bg->offered(u) : 0);
      delivered += service_->delivered(u) + (bg ? bg->delivered(u) : 0);
    }
    if (!hyper) {  // everyone else: the totals less the hyper class
      offered = service_->writes_offered() + (bg ? bg->offered() : 0) - offered;
      delivered = service_->timeline_writes() + (bg ? bg->delivered() : 0) - delivered;
    }
    return offered ? static_cast<double>(delivered) / static_cast<double>(offered) : 1.0;
  }

  // `cluster:` names a scylla service of the same datacenter built before this host (the
  // loader has checked both: ServiceKind::peer_params).
  static scylla::ScyllaCluster* shared_cluster(World& w, const HostContext& ctx,
                                               const std::string& name) {
    scylla::ScyllaCluster* c = scylla_cluster_of(w.find(ctx.datacenter + "/" + name + "/0"));
    if (c == nullptr) {
      throw std::invalid_argument("cluster: no scylla service '" + name + "' built before " +
                                  ctx.service + " in datacenter " + ctx.datacenter);
    }
    return c;
  }

  sim::Simulation& sim_;
  std::unique_ptr<social::FollowGraph> graph_;
  std::unique_ptr<scylla::ScyllaCluster> own_cluster_;  // null with `cluster:`
  scylla::ScyllaCluster* cluster_ = nullptr;
  static constexpr std::uint32_t kHyperMinFollows = 100'000;
  std::unique_ptr<fanout::FanoutService> service_;
  std::unique_ptr<fanout::FollowGrowth> growth_;  // after service_: its filter, destroyed first
  std::uint32_t celebrity_ = 0;
  double posts_per_followed_s_ = 0;
  sim::Rng* reader_rng_ = nullptr;
  sim::Histogram* post_duration_ = nullptr;
  sim::Histogram* read_latency_ = nullptr;
  std::uint64_t db_reads_ = 0;  // Scylla partitions read by timeline reads
  std::uint64_t rows_read_ = 0;  // rows those reads scanned
  std::uint64_t merged_ = 0;     // partitions merged into readers' own (lists, parts)
  std::uint64_t cache_hits_ = 0;  // partitions served by the client's hot-key cache
  std::uint64_t reads_ = 0;
  std::vector<social::UserId> above_limit_;
  std::vector<std::uint8_t> bot_;  // per user: one of the named bots (bot/N)
  const std::vector<fanout::HyperFollowerDetector::Flag> no_flags_;
  std::unique_ptr<scylla::HotShardWindows> hot_;
};

}  // namespace

void register_fanout(Registry& r) {
  r.add(ServiceKind{
      .name = "fanout",
      .doc = "Bluesky timeline fan-out onto sharded Scylla: full / lossy / on-read / lossy + "
             "on-read / per-shard, token ring "
             "or shuffle sharding, hot-key caching (domain.md §7-§9)",
      .params = fanout_params(),
      .endpoints = {"post", "read"},
      .build = [](World& w, const HostContext& ctx) -> std::unique_ptr<Instance> {
        return std::make_unique<FanoutInstance>(w, ctx);
      },
      .peer_params = {{"cluster", "scylla"}},
      // What fan-out costs readers and writers, and what lossy fan-out leaves undelivered.
      .report_panels = [](const std::vector<HostContext>&) {
        return std::vector<sim::ReportPanel>{
            {.title = "Timeline read latency, 99th percentile of the interval",
             .series = {"fanout.read_latency:p99"},
             .unit = "ms",
             .divide_by = 1e6},
            {.title = "Post fan-out duration, 99th percentile of the interval",
             .series = {"fanout.post_duration:p99"},
             .unit = "ms",
             .divide_by = 1e6},
            {.title = "Hot shards (max and mean over the window)",
             .series = {"fanout.hot_shards_max", "fanout.hot_shards_mean"},
             .unit = "shards"},
            {.title = "Share of timeline writes delivered (all users, worst user)",
             .series = {"fanout.delivered_fraction", "fanout.worst_user_delivered_fraction"},
             .unit = "fraction"}};
      }});
}

}  // namespace skysim::scenarios
