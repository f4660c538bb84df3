#pragma once
// Shared workloads of the fan-out tests: one graph per size, built once per test binary.
#include <memory>

#include "models/fanout/celebrity_experiment.hpp"
#include "models/social/population.hpp"

namespace fanout_test {

// N ordinary users, one celebrity followed by `celeb_followers` of them, `bots` accounts each
// following `bot_follows` accounts (domain.md §8.1-§8.2).
inline social::FollowGraph make_graph(std::uint32_t users, std::uint32_t celeb_followers,
                                      std::uint32_t bots, std::uint32_t bot_follows,
                                      std::uint64_t seed = 1) {
  social::PopulationSpec spec;
  spec.users = users;
  spec.mean_follows = 5;  // ordinary users matter here only as timelines to write
  spec.max_follows = 1'000;
  spec.celebrities = {{"celebrity", celeb_followers}};
  for (std::uint32_t b = 0; b < bots; ++b) {
    spec.bots.push_back({"bot/" + std::to_string(b), bot_follows});
  }
  sim::Rng rng(seed);
  return social::build_population(spec, rng);
}

// The 2M-follower celebrity of the write-up (domain.md §8.2) and 6 accounts following 300,000
// (domain.md §8.1: "hundreds of thousands").
inline const social::FollowGraph& celebrity_graph() {
  static const social::FollowGraph g = make_graph(2'050'000, 2'000'000, 6, 300'000);
  return g;
}

// The flare of test_lossy_vs_full.cpp on the celebrity graph: the fleet background at scale
// 0.1 and 2,250 rows/s into each bot's timeline, under `policy`.
inline fanout::ExperimentSpec flare_spec(const social::FollowGraph& g, fanout::FanoutPolicy policy) {
  fanout::ExperimentSpec s;
  s.author = g.id_of("celebrity");
  s.scylla.background_writes_per_s = 5e5;
  s.scylla.scale = 0.1;
  s.posts_per_followed_s = 0.0075;
  s.fanout.policy = policy;
  return s;
}

}  // namespace fanout_test

// The 2M-follower cases take seconds optimised and minutes under AddressSanitizer: the sanitizer
// pass runs the smaller cases only (they exercise the same code paths).
#if defined(__SANITIZE_ADDRESS__)
#define FANOUT_HEAVY "[.heavy]"
#else
#define FANOUT_HEAVY "[heavy]"
#endif
