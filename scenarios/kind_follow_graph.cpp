// The `follow-graph` kind: the follow graph (models/social) as a service of a composition, the
// store a fan-out service walks an author's followers in (issue 26, M5). It serves no requests:
// a go-service reads it through a client with `driver: graph` (the `follower_pages` step), and
// the `fanout-fleet` kind names it. Its graph is docs/models/social.md's population for the
// parameters of scenarios/follow_graph_params.hpp, re-drawn per seed unless graph_seed pins it.
#include <algorithm>
#include <memory>

#include "scenarios/follow_graph_params.hpp"
#include "scenarios/follow_graph_service.hpp"
#include "scenarios/param_builder.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;

std::vector<sim::ParamSpec> graph_params() {
  std::vector<sim::ParamSpec> out = follow_graph_params();
  out.push_back(param("page_fetch", ParamType::Duration, "", "1ms",
                      "one page of follower ids from the store, round trip included "
                      "(assumption, docs/fanout.md)",
                      0, 1e12));
  out.push_back(param("hyper_follows", ParamType::Count, "follows", "2000",
                      "accounts following more than this are the hyper-followers of the delivery "
                      "metrics (fanout.offered/delivered{class=hyper}): the write-up's reasonable "
                      "limit, §8.3 (docs/fanout.md)",
                      0, 4e9));
  return out;
}

class FollowGraphService final : public Instance {
 public:
  FollowGraphService(World& w, const HostContext& ctx)
      : Instance(ctx),
        graph_(draw_follow_graph(w.sim(), ctx.path(), ctx.params, population_spec(ctx.params))) {
    store_.graph = graph_.get();
    store_.page_fetch = ctx.params.duration("page_fetch");
    store_.mark_hyper(static_cast<std::uint64_t>(ctx.params.count("hyper_follows")));
    store_.follow_counts = std::make_unique<fanout::FollowCountStore>();
    for (const auto& [id, account] : graph_->named()) {
      if (account.rfind("bot/", 0) == 0) store_.bots.push_back(id);
    }
    std::sort(store_.bots.begin(), store_.bots.end());
    const sim::Labels host = {{"host", path()}};
    w.metrics().gauge_fn("graph.edges", host, [this] { return double(graph_->edges()); });
    w.metrics().gauge_fn("graph.users", host, [this] { return double(graph_->users()); });
  }

  void handle(Request r) override { r.complete({false, "no_endpoint"}); }  // the loader refuses

  const FollowGraphStore& store() const { return store_; }

 private:
  std::unique_ptr<social::FollowGraph> graph_;
  FollowGraphStore store_;
};

}  // namespace

const FollowGraphStore* follow_graph_of(Instance* host) {
  auto* g = dynamic_cast<FollowGraphService*>(host);
  return g ? &g->store() : nullptr;
}

ServiceKind follow_graph_kind() {
  return ServiceKind{
      .name = "follow-graph",
      .doc = "the follow graph (models/social: a power-law population with a named celebrity "
             "and hyper-following bots) as the store a fan-out walks; read by a go-service's "
             "graph client (follower_pages) and by fanout-fleet",
      .params = graph_params(),
      .endpoints = {},
      .build = [](World& w, const HostContext& c) -> std::unique_ptr<Instance> {
        return std::make_unique<FollowGraphService>(w, c);
      },
      .check_config =
          [](const HostContext& c) {
            if (c.host_count != 1) {
              throw std::invalid_argument("a follow-graph service is one store: write hosts: 1");
            }
            const sim::ParamValues& v = c.params;
            if (v.count("celebrity_followers") > v.count("users")) {
              throw std::invalid_argument("celebrity_followers: more than the " +
                                          std::to_string(v.count("users")) + " ordinary users");
            }
            if (v.count("bots") > 0 && v.count("bot_follows") > v.count("users") + 1) {
              throw std::invalid_argument("bot_follows: more accounts than the graph holds (" +
                                          std::to_string(v.count("users") + 1) + ")");
            }
            if (v.count("growers") > 0 && v.count("grower_follows") > v.count("users") + 1) {
              throw std::invalid_argument("grower_follows: more accounts than the graph holds (" +
                                          std::to_string(v.count("users") + 1) + ")");
            }
            population_spec(v).validate();
          },
  };
}

}  // namespace skysim::scenarios
