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
  pop.follows_alpha = v.real("follows_alpha");
  pop.max_follows = static_cast<std::uint32_t>(v.count("max_follows"));
  pop.exact_follow_counts = true;  // counts are the drawn distribution (docs/models/social.md)
  return pop;
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
