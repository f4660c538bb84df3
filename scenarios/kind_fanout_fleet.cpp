// The `fanout-fleet` kind: the rest of the fleet's fan-out instances, as the hyper-following
// accounts' timelines receive their rows (issue 26, M5). Every account a hyper-follower follows
// posts at posts_per_followed_s (Poisson, assumption), and each post's page goes through this
// fleet's page decision -- the production lossy filter (components/lossy) over the instances'
// own 30 s high-follow cache, or every follower under `policy: full` -- before its kept rows are
// written into a scylla service's cluster (models/fanout/background_posts.hpp, the fleet background of
// docs/fanout.md, beside the composed fan-out service). Only the
// hyper-followers' rows are simulated, write by write and never scaled; the ordinary followers of
// the same posts are the cluster's fluid `background_writes`. A row goes to its coordinator as a
// request does: under the cluster's hot_keys, a row to a key hot at its node is coalesced there.
// With follow_events, bots_grow or the graph's growers, the fleet also runs the graph's growth
// during the run (models/fanout/follow_growth.hpp, docs/fanout.md): the follows go into the
// follow-graph service's sorted set, the growers' new followees' posts are this fleet's rows, and
// its decisions are audited against the true counts (a go-service's lossy_filter audits its own).
#include <memory>
#include <vector>

#include "models/fanout/background_posts.hpp"
#include "models/fanout/follow_growth.hpp"
#include "models/fanout/hot_key_nodes.hpp"
#include "models/fanout/instance_filter.hpp"
#include "models/fanout/post_route.hpp"
#include "scenarios/follow_graph_params.hpp"
#include "scenarios/follow_graph_service.hpp"
#include "scenarios/hyper_detector_service.hpp"
#include "scenarios/param_builder.hpp"
#include "scenarios/peer_service.hpp"
#include "scenarios/scylla_service.hpp"
#include "scenarios/staleness_metrics.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;

std::vector<sim::ParamSpec> fleet_params() {
  std::vector<sim::ParamSpec> out = {
      param("graph", ParamType::String, "", "",
            "the follow-graph service of the same datacenter, declared above this one, whose "
            "accounts post"),
      param("cluster", ParamType::String, "", "",
            "the scylla service of the same datacenter, declared above this one, holding the "
            "timelines (its partitions: at least the graph's accounts)"),
      param("posts_per_followed_s", ParamType::Double, "1/s", "0.0037",
            "posts/s of each account a hyper-follower follows (assumption; sets a bot "
            "timeline's load: 0.0037 x 300k follows gives the write-up's steady write P99 "
            "~15 ms, docs/fanout.md)",
            1e-9, 1),
      param("min_follows", ParamType::Count, "follows", "100k",
            "accounts following at least this many are the hyper-followers whose rows are "
            "simulated (docs/fanout.md)",
            1, 4e9),
      param("policy", ParamType::Enum, "", "full",
            "the fleet's page decision: full (every follower's row) or lossy (the production "
            "filter, components/lossy)",
            std::nullopt, std::nullopt, {"full", "lossy"}),
      param("reasonable_limit", ParamType::Count, "follows", "2000", "lossy limit (§8.3)", 1,
            1e9),
      param("cache_refresh", ParamType::Duration, "", "30s",
            "period of each instance's reload of the high-follow set (§8.3: 30 s)", 2e6, 8.64e13),
      param("page_size", ParamType::Count, "followers", "10k", "§8.2", 1, 1e8),
      param("detector", ParamType::String, "", "",
            "a hyper-detector service of the same datacenter, declared above this one, that "
            "sees each of the fleet's rows before it is written and may refuse it (the fanout "
            "kind's detect_* policies); empty = none"),
      param("split_follows", ParamType::Count, "follows", "0",
            "split timelines (as a go-service's follower_pages split_follows, the same value): "
            "a row goes into the part of the follower's timeline its author's id picks "
            "(models/fanout/split_timelines.hpp); 0 = one timeline per user",
            0, 4e9),
  };
  // The graph's change during the run (docs/fanout.md; off by default): the follows move
  // the true counts in the system's sorted set, the growers' new followees' posts are this
  // fleet's rows, and every page decision that reads the graph (this fleet's, a go-service's
  // lossy_filter) is audited against the true counts (fanout.stale_*).
  for (sim::ParamSpec& p : graph_growth_params("0/s", "false")) out.push_back(std::move(p));
  return out;
}

fanout::InstanceFilterConfig filter_config(const sim::ParamValues& v) {
  fanout::InstanceFilterConfig c;
  c.lossy = v.choice("policy") == "lossy";
  c.reasonable_limit = static_cast<std::uint64_t>(v.count("reasonable_limit"));
  c.refresh = v.duration("cache_refresh");
  c.validate();
  return c;
}

// One row per (post, kept hyper-follower) into the follower's own timeline partition, or under
// split timelines the part its author picks.
class FleetRoute final : public fanout::PostRoute {
 public:
  FleetRoute(sim::Simulation& sim, fanout::InstanceFilter& filter, scylla::ScyllaCluster& cluster,
             const fanout::SplitTimelines* split, fanout::HyperFollowerDetector* detector,
             fanout::HotKeyNodes* hot_keys)
      : sim_(sim),
        filter_(filter),
        cluster_(cluster),
        split_(split),
        detector_(detector),
        hot_keys_(hot_keys) {}
  double keep_probability(social::UserId u) const override { return filter_.keep_probability(u); }
  void timeline_partitions(social::UserId u, std::vector<std::uint32_t>& out) const override {
    out.push_back(u);
    if (split_) split_->append_extra(u, out);
  }
  std::uint32_t timeline_partition(social::UserId u, social::UserId author) const override {
    return split_ ? split_->partition(u, author) : u;
  }
  void filter_page(const social::UserId* page, std::size_t n, sim::Rng& page_r,
                   std::vector<social::UserId>& out) const override {
    const std::size_t before = out.size();
    filter_.filter_page(page, n, page_r, out);
    // The detector sees each kept row about to be written, and may refuse it.
    if (detector_) detector_->admit_page(out, before, sim_.now());
  }
  // A row goes to its coordinator like any request: under the cluster's hot_keys, a row to a
  // key hot at that node waits there for the node's coalesced write.
  void write_row(std::uint32_t partition) override {
    if (hot_keys_) {
      hot_keys_->background_row(partition);
    } else {
      cluster_.background_write(partition);
    }
  }

 private:
  sim::Simulation& sim_;
  fanout::InstanceFilter& filter_;
  scylla::ScyllaCluster& cluster_;
  const fanout::SplitTimelines* split_;
  fanout::HyperFollowerDetector* detector_;  // null: every row written
  fanout::HotKeyNodes* hot_keys_;             // null: the cluster runs no hot-key detectors
};

// The fleet as the graph's growth host: its filter's limit, decision and cache, the system's
// sorted set, and its own route for the growers' rows.
class FleetGrowthHost final : public fanout::GrowthHost {
 public:
  FleetGrowthHost(fanout::InstanceFilter& filter, FleetRoute& route)
      : filter_(filter), route_(route) {}
  std::uint64_t reasonable_limit() const override { return filter_.reasonable_limit(); }
  bool thins_pages() const override { return filter_.lossy(); }
  fanout::FollowCountStore& store() override { return filter_.store(); }
  const lossy::PageFilter& page_filter() const override { return filter_.decision(); }
  std::shared_ptr<const lossy::FollowSnapshot> cache_snapshot() const override {
    return filter_.cache().snapshot();
  }
  void filter_page(const social::UserId* page, std::size_t n, sim::Rng& page_r,
                   std::vector<social::UserId>& out) override {
    route_.filter_page(page, n, page_r, out);
  }
  void write_background_row(std::uint32_t partition) override { route_.write_row(partition); }

 private:
  fanout::InstanceFilter& filter_;
  FleetRoute& route_;
};

class FanoutFleet final : public Instance {
 public:
  FanoutFleet(World& w, const HostContext& ctx) : Instance(ctx), sim_(w.sim()) {
    const sim::ParamValues& v = ctx.params;
    store_ = peer<const FollowGraphStore>(w, ctx, "graph", follow_graph_of);
    cluster_ = peer<scylla::ScyllaCluster>(w, ctx, "cluster", scylla_cluster_of);
    const auto split_follows = static_cast<std::uint32_t>(v.count("split_follows"));
    const fanout::SplitTimelines* split = split_follows ? &store_->split(split_follows) : nullptr;
    const std::uint32_t needed = split ? split->partitions() : store_->graph->users();
    if (cluster_->partitions() < needed) {
      throw std::invalid_argument("cluster: the scylla service '" + v.string("cluster") +
                                  "' holds " + std::to_string(cluster_->partitions()) +
                                  " partitions; the graph's timelines need " +
                                  std::to_string(needed));
    }
    filter_ = std::make_unique<fanout::InstanceFilter>(sim_, *store_->graph, filter_config(v),
                                                       store_->follow_counts.get());
    // The loader checked the peer's kind; a detector whose flag is off is none.
    fanout::HyperFollowerDetector* detector =
        v.string("detector").empty()
            ? nullptr
            : hyper_detector_of(peer_host(w, ctx, v.string("detector")));
    hot_keys_ = scylla_hot_keys_of(peer_host(w, ctx, v.string("cluster")));
    route_ = std::make_unique<FleetRoute>(sim_, *filter_, *cluster_, split, detector, hot_keys_);
    if (hot_keys_) add_hot_key_metrics(w, v);
    fanout::FollowGrowthConfig gc = growth_config(v, *store_->graph);
    if (gc.follow_events_per_s > 0 || !gc.growers.empty()) build_growth(w, v, std::move(gc));
    const sim::Labels hyper = {{"class", "hyper"}, {"host", path()}};
    w.metrics().counter_fn("fanout.offered", hyper,
                           [this] { return posts_ ? double(posts_->offered()) : 0.0; });
    w.metrics().counter_fn("fanout.delivered", hyper,
                           [this] { return posts_ ? double(posts_->delivered()) : 0.0; });
    const sim::Labels host = {{"host", path()}};
    w.metrics().counter_fn("fanout.fleet_posts", host,
                           [this] { return posts_ ? double(posts_->posts()) : 0.0; });
    // Whose rows are simulated, and how many accounts post into them.
    w.metrics().gauge_fn("fanout.fleet_hyper_followers", host,
                         [this] { return posts_ ? double(posts_->hyper_followers()) : 0.0; });
    w.metrics().gauge_fn("fanout.fleet_authors", host,
                         [this] { return posts_ ? double(posts_->authors()) : 0.0; });
  }

  void start(World&) override {
    filter_->start();
    const sim::ParamValues& v = context().params;
    posts_ = std::make_unique<fanout::BackgroundPosts>(
        fanout::BackgroundPostsSetup{sim_, *store_->graph, *cluster_, *route_,
                                     static_cast<std::uint32_t>(v.count("page_size")),
                                     path() + "/posts", path() + "/page_r"},
        static_cast<std::uint32_t>(v.count("min_follows")), v.real("posts_per_followed_s"));
    if (growth_) growth_->start();  // after the filter and the background, as the kind's
  }

  // The graph's growth, run here (one per graph: its true counts are what every instance's
  // decisions are audited against), this fleet's own decisions audited first.
  void build_growth(World& w, const sim::ParamValues& v, fanout::FollowGrowthConfig gc) {
    if (store_->growth != nullptr) {
      throw std::invalid_argument("graph: the follow-graph service '" + v.string("graph") +
                                  "' grows under another fanout-fleet already (one per graph)");
    }
    gc.posts_per_followed_s = v.real("posts_per_followed_s");
    gc.background_min_follows = static_cast<std::uint32_t>(v.count("min_follows"));
    gc.background_installed = gc.posts_per_followed_s > 0;
    growth_host_ = std::make_unique<FleetGrowthHost>(*filter_, *route_);
    growth_ = std::make_unique<fanout::FollowGrowth>(sim_, *cluster_, *store_->graph,
                                                     *growth_host_, std::move(gc));
    store_->growth = growth_.get();
    filter_->audit_with(*growth_);
    const sim::Labels host = {{"host", path()}};
    w.metrics().counter_fn("fanout.follows_made", host,
                           [this] { return double(growth_->follows_made()); });
    w.metrics().gauge_fn("fanout.grower_delivered_fraction", host,
                         [this] { return growth_->grower_delivered_fraction(); });
    w.metrics().gauge_fn("fanout.grower_exact_fraction", host,
                         [this] { return growth_->grower_exact_fraction(); });
    add_staleness_metrics(w.metrics(), path(), [this] { return std::vector{filter_->audit()}; });
  }

  void handle(Request r) override { r.complete({false, "no_endpoint"}); }  // the loader refuses

  // Whom the cluster's hot-key detectors flagged, as the fleet's graph sees them: the named
  // bots among them, accounts at or under reasonable_limit (false positives: their timelines
  // are not the hyper-followers'), and the bots' mean first-flag instant
  // (fanout.hotkey_bots_flagged, _false_positives, _bot_flag_mean_ns; docs/fanout.md).
  void add_hot_key_metrics(World& w, const sim::ParamValues& v) {
    const social::FollowGraph& g = *store_->graph;
    const auto limit = static_cast<std::uint64_t>(v.count("reasonable_limit"));
    const auto bot = [this](std::uint32_t key) { return store_->is_bot(key); };
    const auto at_most_limit = [&g, limit](std::uint32_t key) {
      return key < g.users() && g.follow_count(key) <= limit;
    };
    const sim::Labels host = {{"host", path()}};
    w.metrics().gauge_fn("fanout.hotkey_bots_flagged", host,
                         [this, bot] { return double(hot_keys_->flagged_count(bot)); });
    w.metrics().gauge_fn("fanout.hotkey_false_positives", host, [this, at_most_limit] {
      return double(hot_keys_->flagged_count(at_most_limit));
    });
    w.metrics().gauge_fn("fanout.hotkey_bot_flag_mean_ns", host,
                         [this, bot] { return hot_keys_->mean_first_flag(bot); });
  }

  void finish(World&) override { filter_->stop(); }

  std::vector<Invariant> invariants() override {
    return {{"fanout.kept-ge-loss-factor", [this] { return filter_->keep_bound_error(); }}};
  }

 private:
  sim::Simulation& sim_;
  const FollowGraphStore* store_ = nullptr;
  scylla::ScyllaCluster* cluster_ = nullptr;
  std::unique_ptr<fanout::InstanceFilter> filter_;
  std::unique_ptr<FleetRoute> route_;
  std::unique_ptr<fanout::BackgroundPosts> posts_;
  std::unique_ptr<FleetGrowthHost> growth_host_;
  std::unique_ptr<fanout::FollowGrowth> growth_;  // null: the graph is fixed
  fanout::HotKeyNodes* hot_keys_ = nullptr;  // the cluster's, under its hot_keys
};

}  // namespace

ServiceKind fanout_fleet_kind() {
  return ServiceKind{
      .name = "fanout-fleet",
      .doc = "the rest of the fleet's fan-out into the hyper-followers' timelines: the posts of "
             "every account they follow, each page through the fleet's page decision (full, or "
             "the production lossy filter), its kept rows written into a scylla service",
      .params = fleet_params(),
      .endpoints = {},
      .build = [](World& w, const HostContext& c) -> std::unique_ptr<Instance> {
        return std::make_unique<FanoutFleet>(w, c);
      },
      .peer_params = {{"graph", "follow-graph"}, {"cluster", "scylla"}, {"detector", "hyper-detector"}},
      .check_config =
          [](const HostContext& c) {
            if (c.host_count != 1) {
              throw std::invalid_argument("a fanout-fleet service stands for the whole rest of "
                                          "the fleet: write hosts: 1");
            }
            if (c.params.string("graph").empty()) {
              throw std::invalid_argument("graph: name the follow-graph service");
            }
            if (c.params.string("cluster").empty()) {
              throw std::invalid_argument("cluster: name the scylla service");
            }
            filter_config(c.params);
          },
  };
}

}  // namespace skysim::scenarios
