#pragma once
// The follow graph's parameters, declared once for every kind that draws one (`fanout`, which
// builds its whole world, and `follow-graph`, the graph as a service of a composition): the same
// names, docs, defaults and ranges in both, and the same draw, so a composition's graph is the
// kind's graph for the same values and seed (docs/models/social.md).
#include <memory>
#include <string>
#include <vector>

#include "models/fanout/follow_growth.hpp"
#include "models/social/follow_graph.hpp"
#include "models/social/population.hpp"
#include "sim/params.hpp"
#include "sim/simulation.hpp"

namespace skysim::scenarios {

// users, mean_follows, celebrity_followers, bots, bot_follows, follows_alpha, max_follows,
// graph_seed, growers, grower_follows.
std::vector<sim::ParamSpec> follow_graph_params();

// The graph's change during a run (models/fanout/follow_growth.hpp): follow_events,
// grower_follow_rate, bots_grow, with the given defaults (a fleet's are off; the scenarios of
// docs/fanout.md turn them on).
std::vector<sim::ParamSpec> graph_growth_params(const char* follow_events, const char* bots_grow);
// Their FollowGrowthConfig: the rates, and the growers (every grower/i, and the bots if they
// grow) in the graph's name order. The caller sets what the host decides (posts, background).
fanout::FollowGrowthConfig growth_config(const sim::ParamValues& v,
                                         const social::FollowGraph& graph);

// The population those parameters describe: one celebrity ("celebrity"), `bots` bots
// ("bot/0", ...) and `growers` growers ("grower/0", ...), follow counts exactly the drawn
// distribution.
social::PopulationSpec population_spec(const sim::ParamValues& v);

// Draws the graph of `pop` for the host at `path`: seeded by graph_seed when it is pinned
// (>= 0), else by the run's stream `path + "/graph"`, so it is re-drawn per seed. Under
// `skysim compare` its workers share a cache of drawn graphs (models/social/graph_file.hpp).
std::unique_ptr<social::FollowGraph> draw_follow_graph(sim::Simulation& sim,
                                                       const std::string& path,
                                                       const sim::ParamValues& v,
                                                       const social::PopulationSpec& pop);

}  // namespace skysim::scenarios
