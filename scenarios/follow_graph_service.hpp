#pragma once
// The `follow-graph` kind's store, for what reads it: a go-service's graph client
// (`follower_pages` walks an author's followers through it) and the `fanout-fleet` kind.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "models/fanout/follow_count_store.hpp"
#include "models/fanout/split_timelines.hpp"
#include "models/fanout/staleness_audit.hpp"
#include "models/social/follow_graph.hpp"
#include "scenarios/model_registry.hpp"
#include "sim/time.hpp"

namespace skysim::scenarios {

// What a reader of the graph reaches.
struct FollowGraphStore {
  const social::FollowGraph* graph = nullptr;
  // One page of follower ids from the store, round trip included.
  sim::Duration page_fetch = 0;
  // The hyper-followers of the delivery metrics: accounts that follow more than the service's
  // `hyper_follows`. One bit per account, set once: the graph is fixed, and the delivery
  // metrics ask for every write, where reading the count was a cache miss into the graph's
  // offsets per write (a bit per account fits the L2: 128 KB per million accounts).
  std::vector<bool> hyper_accounts;
  void mark_hyper(std::uint64_t follows) {
    hyper_accounts.assign(graph->users(), false);
    for (social::UserId u = 0; u < graph->users(); ++u) {
      if (graph->follow_count(u) > follows) hyper_accounts[u] = true;
    }
  }
  bool hyper(social::UserId u) const { return hyper_accounts[u]; }
  // The graph's named bots (bot/i), sorted: whom a detector should flag.
  std::vector<social::UserId> bots;
  bool is_bot(social::UserId u) const { return std::binary_search(bots.begin(), bots.end(), u); }
  // The split timelines' layout for `split_follows` follows per part, built at its first use
  // and shared by every step that names it (a writer and a reader must agree on the parts).
  const fanout::SplitTimelines& split(std::uint32_t split_follows) const {
    std::unique_ptr<fanout::SplitTimelines>& layout = split_layouts[split_follows];
    if (!layout) layout = std::make_unique<fanout::SplitTimelines>(*graph, split_follows);
    return *layout;
  }
  // A cache of what the graph fixes: filling it changes no answer (hence mutable).
  mutable std::map<std::uint32_t, std::unique_ptr<fanout::SplitTimelines>> split_layouts;
  // The system's sorted set of accounts above the limit (one Redis, domain.md §8.3): every
  // fan-out instance's filter publishes into it and reloads its cache from it, and the graph's
  // growth writes each new count into it. Shared state of the run, hence mutable.
  mutable std::unique_ptr<fanout::FollowCountStore> follow_counts;
  // The graph's change during the run, when a fanout-fleet runs it (its follow_events,
  // bots_grow, growers): the true counts each instance's decisions are audited against. Null:
  // the graph is fixed.
  mutable const fanout::FollowTruth* growth = nullptr;
};

ServiceKind follow_graph_kind();
// The store of a `follow-graph` host; nullptr for a host of another kind (or none).
const FollowGraphStore* follow_graph_of(Instance* host);

// The rest of the fleet's fan-out into the hyper-followers' timelines (scenarios/
// kind_fanout_fleet.cpp).
ServiceKind fanout_fleet_kind();

}  // namespace skysim::scenarios
