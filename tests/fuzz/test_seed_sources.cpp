// Seeds that keep changing: pinned regression seeds with reasons, a fresh range per commit.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "fuzz/seed_sources.hpp"

using namespace skysim::fuzz;

TEST_CASE("fresh seeds change with the commit and repeat for the same commit") {
  auto a = expand_seed_sources("fresh:5", "aaaa");
  auto again = expand_seed_sources("fresh:5", "aaaa");
  auto b = expand_seed_sources("fresh:5", "bbbb");
  REQUIRE(a.seeds.size() == 5);
  CHECK(a.seeds == again.seeds);
  CHECK(a.seeds != b.seeds);
  CHECK(a.seeds.front() >= 1'000'000);
  CHECK(a.seeds[1] == a.seeds[0] + 1);
  CHECK(a.described.find("from commit aaaa") != std::string::npos);
  CHECK_THROWS(expand_seed_sources("fresh:0", "aaaa"));
  CHECK_THROWS(expand_seed_sources("fresh:many", "aaaa"));
}

TEST_CASE("the pinned regression file needs a reason per seed and mixes with the rest") {
  auto dir = std::filesystem::temp_directory_path() / "skysim-seed-sources";
  std::filesystem::create_directories(dir);
  std::string good = (dir / "good.txt").string(), bad = (dir / "bad.txt").string();
  std::ofstream(good) << "# comment\n7  found the planted bug\n\n12 another reason # trailing\n";
  std::ofstream(bad) << "7  fine\n9\n";
  auto s = expand_seed_sources("@" + good + ",1..3,7", "c");
  CHECK(s.seeds == std::vector<std::uint64_t>{7, 12, 1, 2, 3});  // duplicates keep first place
  try {
    expand_seed_sources("@" + bad, "c");
    FAIL("a seed without a reason was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == bad + ":2: seed 9 has no reason (expected: SEED  why it is pinned)");
  }
  // The repository's own file parses.
  auto pinned = expand_seed_sources(std::string("@") + SKYSIM_SOURCE_DIR + "/tests/fuzz/regressions.txt", "c");
  CHECK(pinned.seeds.size() >= 3);
  std::filesystem::remove_all(dir);
}
