#pragma once
// Builders of a FollowGraph: a seeded power-law population (the shape of real follow graphs,
// with named celebrities and hyper-following bots, domain.md §8.1/§8.2), or an edge-list file.
#include <cstdint>
#include <string>
#include <vector>

#include "models/social/follow_graph.hpp"
#include "sim/rng.hpp"

namespace social {

struct NamedAccount {
  std::string name;
  std::uint32_t count = 0;  // followers of a celebrity / accounts a bot follows
};

struct PopulationSpec {
  std::uint32_t users = 100'000;  // ordinary users; named accounts are added after them
  // Follow counts of ordinary users: Pareto(x_m, alpha) rounded, capped at max_follows.
  // assumption: alpha 2 and mean 50 (a heavy-tailed out-degree; Bluesky's is not published).
  double mean_follows = 50.0;
  double follows_alpha = 2.0;
  std::uint32_t max_follows = 5'000;
  // Whom they follow: Zipf popularity over a random ranking of users (assumption: s = 1).
  double popularity_zipf_s = 1.0;
  std::vector<NamedAccount> celebrities;  // e.g. {"celebrity", 2'000'000} (domain.md §8.2)
  std::vector<NamedAccount> bots;         // e.g. {"bot/1", 300'000} (domain.md §8.1)
  // assumption: an account that follows hundreds of thousands follows every celebrity too;
  // the rest of its follows are uniform over ordinary users.
  bool bots_follow_celebrities = true;
  // false (the default, kept for the existing goldens): an ordinary user draws k popularity
  // picks and keeps the distinct ones, so a heavy user ends well below k (Zipf repeats the top
  // ranks). true: every ordinary user follows exactly its drawn k distinct accounts (popularity
  // picks until k distinct or 2k+16 picks, then the rest uniform over those not yet followed),
  // so the follow counts are the drawn distribution itself (follow_count_cdf below).
  bool exact_follow_counts = false;

  void validate() const;
};

// Deterministic given the stream. Ordinary users' follow lists are de-duplicated (a drawn
// duplicate is dropped, so a user may end slightly below its drawn count).
FollowGraph build_population(const PopulationSpec& spec, sim::Rng& rng);

// P(K <= k) for one ordinary user's drawn follow count K = min(floor(X + 0.5), cap),
// X ~ Pareto(x_m, follows_alpha), x_m = mean_follows (alpha - 1) / alpha, cap =
// min(max_follows, users - 1): what the counts of an exact_follow_counts population follow.
double follow_count_cdf(const PopulationSpec& spec, double k);

// "follower followee" per line (decimal ids, whitespace-separated, '#' starts a comment).
// users = 1 + the largest id seen unless given. Errors name the file and line.
FollowGraph load_edge_list(const std::string& path, std::uint32_t users = 0);

}  // namespace social
