#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "models/social/population.hpp"

using namespace social;

TEST_CASE("both directions of a small follow graph") {
  FollowGraph g(4, {{0, 1}, {2, 1}, {3, 1}, {1, 0}, {3, 0}});
  CHECK(g.users() == 4);
  CHECK(g.edges() == 5);
  CHECK(g.follower_count(1) == 3);
  CHECK(g.follow_count(3) == 2);
  CHECK(g.follower_count(2) == 0);
  CHECK(g.followers(2).empty());
  auto f = g.followers(1);
  CHECK(std::set<UserId>(f.begin(), f.end()) == std::set<UserId>{0, 2, 3});
  CHECK(g.memory_bytes() == 2 * (5 * 4 + 5 * 4));
  CHECK_THROWS_AS(g.followers(4), std::out_of_range);
  CHECK_THROWS_WITH(FollowGraph(3, {{0, 3}}), Catch::Contains(">= 3"));
  CHECK_THROWS_WITH(FollowGraph(3, {{1, 1}}), Catch::Contains("follows itself"));
}

TEST_CASE("population: celebrities and bots get exactly their counts; degrees are skewed") {
  PopulationSpec spec;
  spec.users = 20'000;
  spec.mean_follows = 20;
  spec.celebrities = {{"celebrity", 15'000}};
  spec.bots = {{"bot/1", 12'000}, {"bot/2", 5'000}};
  sim::Rng rng(42);
  FollowGraph g = build_population(spec, rng);
  CHECK(g.users() == 20'003);
  const UserId celeb = g.id_of("celebrity");
  std::uint32_t ordinary_followers = 0;
  for (UserId f : g.followers(celeb)) {
    ordinary_followers += f < spec.users ? 1 : 0;
  }
  CHECK(ordinary_followers == 15'000);  // plus whichever bots drew the celebrity
  CHECK(g.follower_count(celeb) == 15'002);  // and both bots (bots_follow_celebrities)
  CHECK(g.follow_count(g.id_of("bot/1")) == 12'000);
  CHECK(g.follow_count(g.id_of("bot/2")) == 5'000);
  CHECK_THROWS_WITH(g.id_of("nobody"), Catch::Contains("nobody"));
  // Ordinary out-degree: mean near the spec (duplicates dropped), heavy tail present.
  std::uint64_t ordinary = 0;
  std::uint32_t max_follows = 0;
  std::uint32_t max_followers = 0;
  for (UserId u = 0; u < spec.users; ++u) {
    ordinary += g.follow_count(u);
    max_follows = std::max(max_follows, g.follow_count(u));
    max_followers = std::max(max_followers, g.follower_count(u));
  }
  const double mean = static_cast<double>(ordinary) / spec.users;
  CHECK(mean > 15);
  CHECK(mean < 21);
  CHECK(max_follows > 10 * mean);
  CHECK(max_followers > 50 * mean);  // Zipf popularity: a few accounts collect many followers
  // No duplicate follows.
  for (UserId u = 0; u < 200; ++u) {
    auto f = g.follows(u);
    CHECK(std::set<UserId>(f.begin(), f.end()).size() == f.size());
  }
  // Deterministic per seed.
  sim::Rng rng2(42);
  FollowGraph g2 = build_population(spec, rng2);
  CHECK(g2.edges() == g.edges());
  CHECK(g2.follow_count(777) == g.follow_count(777));
}

TEST_CASE("population spec errors name the account") {
  PopulationSpec spec;
  spec.users = 100;
  spec.celebrities = {{"star", 500}};
  sim::Rng rng(1);
  CHECK_THROWS_WITH(build_population(spec, rng), Catch::Contains("star"));
  spec.celebrities.clear();
  spec.follows_alpha = 1.0;
  CHECK_THROWS_WITH(build_population(spec, rng), Catch::Contains("follows_alpha"));
}

TEST_CASE("edge-list files: comments, blank lines, errors with file:line") {
  const std::string path = "/tmp/skysim_test_edges_fanout.txt";
  {
    std::ofstream out(path);
    out << "# follower followee\n0 1\n\n2 1  # trailing comment\n1 0\n";
  }
  FollowGraph g = load_edge_list(path);
  CHECK(g.users() == 3);
  CHECK(g.follower_count(1) == 2);
  {
    std::ofstream out(path);
    out << "0 1\n2 x\n";
  }
  CHECK_THROWS_WITH(load_edge_list(path), Catch::Contains(":2:"));
  {
    std::ofstream out(path);
    out << "0 1 5\n";
  }
  CHECK_THROWS_WITH(load_edge_list(path), Catch::Contains(":1:"));
  std::remove(path.c_str());
  CHECK_THROWS_WITH(load_edge_list("/nonexistent/edges"), Catch::Contains("cannot open"));
}

// Run by hand: /usr/bin/time -v test_social "[.memory]" (docs/models/social.md).
TEST_CASE("a 1M-user, 50M-edge graph", "[.memory]") {
  PopulationSpec spec;
  spec.users = 1'000'000;
  spec.mean_follows = 58;  // ~14 % of draws are duplicates of a popular account and dropped
  spec.max_follows = 20'000;
  sim::Rng rng(7);
  FollowGraph g = build_population(spec, rng);
  WARN("edges=" << g.edges() << " bytes=" << g.memory_bytes()
                << " B/edge=" << static_cast<double>(g.memory_bytes()) / g.edges());
  CHECK(g.edges() > 48'000'000);
}
