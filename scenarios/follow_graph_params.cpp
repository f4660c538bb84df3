#include "scenarios/follow_graph_params.hpp"

#include "models/social/graph_file.hpp"
#include "scenarios/param_builder.hpp"

namespace skysim::scenarios {

using sim::ParamType;

std::vector<sim::ParamSpec> follow_graph_params() {
  return {
      param("users", ParamType::Count, "users", "2.05M",
            "ordinary users (Bluesky ~32M, §8.1; fewer keeps runs short)", 2, 1e9),
      param("mean_follows", ParamType::Double, "", "5",
            "mean follows of an ordinary user (assumption; unpublished)", 1, 1e6),
      param("celebrity_followers", ParamType::Count, "", "2M", "the posting author (§8.2)", 1,
            1e9),
      param("bots", ParamType::Count, "", "6", "hyper-following accounts (§8.1)", 0, 1e4),
      param("bot_follows", ParamType::Count, "", "300k", "follows of each bot (§8.1)", 1, 1e9),
      param("follows_alpha", ParamType::Double, "", "1.3",
            "Pareto exponent of ordinary users' follow counts (assumption: Bluesky's follow "
            "degrees are heavy-tailed, Quelle & Bovet, PLoS ONE 2025; 1.3 puts ~120 of 2M users "
            "above 2,000 follows with the cap at 300k, docs/models/social.md)",
            1.01, 10),
      param("max_follows", ParamType::Count, "", "300k",
            "cap on an ordinary user's follows (§8.1: 'hundreds of thousands')", 1, 4e9),
      param("graph_seed", ParamType::Int, "", "-1",
            "seed of the graph generator; -1: drawn from the run's seed (the graph is re-drawn "
            "per seed), >= 0 pins it",
            -1, 1e18),
      param("growers", ParamType::Count, "", "0",
            "follow-spree accounts added to the graph (grower/0..), growing from grower_follows",
            0, 1e4),
      param("grower_follows", ParamType::Count, "", "1500",
            "follows of each grower at start (assumption: just below reasonable_limit)", 1, 1e9),
  };
}

social::PopulationSpec population_spec(const sim::ParamValues& v) {
  social::PopulationSpec pop;
  pop.users = static_cast<std::uint32_t>(v.count("users"));
  pop.mean_follows = v.real("mean_follows");
  pop.celebrities = {{"celebrity", static_cast<std::uint32_t>(v.count("celebrity_followers"))}};
  for (std::int64_t b = 0; b < v.count("bots"); ++b) {
    pop.bots.push_back({"bot/" + std::to_string(b),
                        static_cast<std::uint32_t>(v.count("bot_follows"))});
  }
  for (std::int64_t g = 0; g < v.count("growers"); ++g) {
    pop.bots.push_back({"grower/" + std::to_string(g),
                        static_cast<std::uint32_t>(v.count("grower_follows"))});
  }
  pop.follows_alpha = v.real("follows_alpha");
  pop.max_follows = static_cast<std::uint32_t>(v.count("max_follows"));
  pop.exact_follow_counts = true;  // counts are the drawn distribution (docs/models/social.md)
  return pop;
}

std::vector<sim::ParamSpec> graph_growth_params(const char* follow_events, const char* bots_grow) {
  return {
      param("follow_events", ParamType::Rate, "follows/s", follow_events,
            "ordinary users' new follows (assumption; firehose > 1,500 events/s of all kinds)", 0,
            1e7),
      param("grower_follow_rate", ParamType::Rate, "follows/s", "1666/h",
            "new follows of each grower and, with bots_grow, each bot (Bluesky PDS limit: 1,666 "
            "records/h, docs.bsky.app rate-limits)", 0, 1e6),
      param("bots_grow", ParamType::Bool, "", bots_grow,
            "the bots keep following at grower_follow_rate"),
  };
}

fanout::FollowGrowthConfig growth_config(const sim::ParamValues& v,
                                         const social::FollowGraph& graph) {
  fanout::FollowGrowthConfig gc;
  gc.follow_events_per_s = v.rate_per_s("follow_events");
  gc.grower_follows_per_s = v.rate_per_s("grower_follow_rate");
  for (const auto& [id, name] : graph.named()) {
    if (name.rfind("grower/", 0) == 0 || (v.flag("bots_grow") && name.rfind("bot/", 0) == 0)) {
      gc.growers.push_back(id);
    }
  }
  return gc;
}

std::unique_ptr<social::FollowGraph> draw_follow_graph(sim::Simulation& sim,
                                                       const std::string& path,
                                                       const sim::ParamValues& v,
                                                       const social::PopulationSpec& pop) {
  const std::int64_t pinned = v.integer("graph_seed");
  const std::uint64_t seed = pinned >= 0 ? static_cast<std::uint64_t>(pinned)
                                         : sim.stream(path + "/graph").next_u64();
  // Drawn once per (spec, seed) under `skysim compare`: the graph read back is the one drawn,
  // bit for bit.
  return std::make_unique<social::FollowGraph>(
      social::cached_population(pop, seed, social::graph_cache_dir()));
}

}  // namespace skysim::scenarios
