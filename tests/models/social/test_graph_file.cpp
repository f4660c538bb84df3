// The follow-graph cache (models/social/graph_file.hpp): a graph read back is the graph drawn,
// every adjacency list in order and every name, so a run on a cached graph is the run on a
// freshly drawn one (tests/cli/test_graph_cache.cpp checks that end to end).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/social/graph_file.hpp"

using namespace social;
namespace fs = std::filesystem;

namespace {

PopulationSpec small_spec() {
  PopulationSpec spec;
  spec.users = 5'000;
  spec.mean_follows = 20;
  spec.celebrities = {{"celebrity", 3'000}};
  spec.bots = {{"bot/0", 2'000}, {"bot/1", 1'500}};
  spec.exact_follow_counts = true;
  return spec;
}

FollowGraph fresh(const PopulationSpec& spec, std::uint64_t seed) {
  sim::Rng rng(seed);
  return build_population(spec, rng);
}

// Same users, edges, names, and both directions' lists element by element.
void require_identical(const FollowGraph& a, const FollowGraph& b) {
  REQUIRE(a.users() == b.users());
  REQUIRE(a.edges() == b.edges());
  REQUIRE(a.named() == b.named());
  for (UserId u = 0; u < a.users(); ++u) {
    const auto fa = a.follows(u), fb = b.follows(u);
    REQUIRE(std::equal(fa.begin(), fa.end(), fb.begin(), fb.end()));
    const auto ra = a.followers(u), rb = b.followers(u);
    REQUIRE(std::equal(ra.begin(), ra.end(), rb.begin(), rb.end()));
  }
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "skysim-graph-test-XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() { fs::remove_all(path); }
  std::size_t files() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), {}));
  }
};

}  // namespace

TEST_CASE("graph file: a saved population reads back identical") {
  TempDir dir;
  const PopulationSpec spec = small_spec();
  const FollowGraph g = fresh(spec, 7);
  const std::string key = population_key(spec, 7);
  const std::string file = (dir.path / "g.bin").string();
  save_graph(g, key, file);
  auto back = load_graph(file, key);
  REQUIRE(back.has_value());
  require_identical(g, *back);
  CHECK(back->id_of("bot/1") == g.id_of("bot/1"));
  CHECK(back->memory_bytes() == g.memory_bytes());
  // Another key (another seed) does not read this file.
  CHECK_FALSE(load_graph(file, population_key(spec, 8)).has_value());
  CHECK_FALSE(load_graph((dir.path / "none.bin").string(), key).has_value());
}

TEST_CASE("graph file: a truncated or altered file is refused, not half-read") {
  TempDir dir;
  const PopulationSpec spec = small_spec();
  const FollowGraph g = fresh(spec, 3);
  const std::string key = population_key(spec, 3);
  const std::string file = (dir.path / "g.bin").string();
  save_graph(g, key, file);
  const auto size = fs::file_size(file);
  fs::resize_file(file, size - 1);
  CHECK_FALSE(load_graph(file, key).has_value());
  save_graph(g, key, file);
  {
    std::ofstream extra(file, std::ios::app | std::ios::binary);
    extra << 'x';
  }
  CHECK_FALSE(load_graph(file, key).has_value());
  save_graph(g, key, file);
  {
    // A column entry out of range (the last 4 bytes: the followers CSR's last column).
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 4));
    const std::uint32_t bad = g.users();
    f.write(reinterpret_cast<const char*>(&bad), 4);
  }
  CHECK_FALSE(load_graph(file, key).has_value());
}

TEST_CASE("graph cache: the first draw of a seed is saved, the next reads it, both as drawn") {
  TempDir dir;
  const PopulationSpec spec = small_spec();
  const FollowGraph want = fresh(spec, 11);
  const FollowGraph first = cached_population(spec, 11, dir.path.string());
  CHECK(dir.files() == 1);
  require_identical(want, first);
  const FollowGraph second = cached_population(spec, 11, dir.path.string());
  CHECK(dir.files() == 1);
  require_identical(want, second);
  // Another seed, another graph and another file; no cache dir: a plain draw.
  const FollowGraph other = cached_population(spec, 12, dir.path.string());
  CHECK(dir.files() == 2);
  CHECK(other.edges() != want.edges());
  require_identical(fresh(spec, 12), other);
  require_identical(want, cached_population(spec, 11, ""));
}

TEST_CASE("graph cache: the key tells every spec field apart") {
  const PopulationSpec base = small_spec();
  const std::string k = population_key(base, 1);
  CHECK(population_key(base, 2) != k);
  auto changed = [&](auto edit) {
    PopulationSpec s = base;
    edit(s);
    return population_key(s, 1) != k;
  };
  CHECK(changed([](PopulationSpec& s) { s.users += 1; }));
  CHECK(changed([](PopulationSpec& s) { s.mean_follows = std::nextafter(s.mean_follows, 1e9); }));
  CHECK(changed([](PopulationSpec& s) { s.follows_alpha = 2.5; }));
  CHECK(changed([](PopulationSpec& s) { s.max_follows = 4'000; }));
  CHECK(changed([](PopulationSpec& s) { s.popularity_zipf_s = 1.1; }));
  CHECK(changed([](PopulationSpec& s) { s.celebrities[0].count += 1; }));
  CHECK(changed([](PopulationSpec& s) { s.celebrities[0].name = "celeb"; }));
  CHECK(changed([](PopulationSpec& s) { s.bots.pop_back(); }));
  CHECK(changed([](PopulationSpec& s) { s.bots[1].count += 1; }));
  CHECK(changed([](PopulationSpec& s) { s.bots_follow_celebrities = false; }));
  CHECK(changed([](PopulationSpec& s) { s.exact_follow_counts = false; }));
  // A graph saved for a spec is not read for a changed one, even under the same file name.
  TempDir dir;
  PopulationSpec other = base;
  other.users += 1;
  const std::string file = (dir.path / "g.bin").string();
  save_graph(fresh(base, 1), k, file);
  CHECK_FALSE(load_graph(file, population_key(other, 1)).has_value());
}
