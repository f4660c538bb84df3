// A fan-out run on a graph read from the compare workers' cache (models/social/graph_file.hpp)
// prints exactly what the run that draws its own graph prints: fingerprint, per-model
// fingerprints, unseed and every metric (docs/benchmarks.md, h-tablespeed) — for a
// follow-graph store's graph (the fanout kind's, until 7a68e53, the same).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "run_skysim.hpp"

using skysim::testing::Output;
using skysim::testing::run_skysim;

namespace {
// A smaller graph (200k users) and 40 s: the same code path as the policy table, seconds to run.
const std::string kRun = "run " + std::string(SKYSIM_SOURCE_DIR) +
                         "/scenarios/fanout-policies.yaml --seed 3 --until 40s "
                         "--set datacenters.east.services.graph.params.users=200k "
                         "--set datacenters.east.services.graph.params.celebrity_followers="
                         "150k --set datacenters.east.services.graph.params.bot_follows=30k "
                         "--set variant=lossy";
}  // namespace

TEST_CASE("fan-out run: a cached follow graph gives the run a drawn one gives") {
  const std::string& run = kRun;
  std::string dir = (std::filesystem::temp_directory_path() / "skysim-cli-graphs-XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  Output fresh = run_skysim(run + " --out " + dir + "/a");
  ::setenv("SKYSIM_GRAPH_CACHE", dir.c_str(), 1);  // what compare gives its workers
  Output saving = run_skysim(run + " --out " + dir + "/b");
  std::size_t graphs = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    graphs += e.path().filename().string().rfind("graph-", 0) == 0 ? 1 : 0;
  }
  Output reading = run_skysim(run + " --out " + dir + "/c");
  ::unsetenv("SKYSIM_GRAPH_CACHE");
  std::filesystem::remove_all(dir);
  REQUIRE(fresh.status == 0);
  REQUIRE(saving.status == 0);
  REQUIRE(reading.status == 0);
  CHECK(graphs == 1);
  // The output directory is named in the output, and the events line says the wall time; the
  // rest (event count included) must match byte for byte.
  auto strip = [](const std::string& text, const std::string& d) {
    std::istringstream in(text);
    std::string out, line;
    while (std::getline(in, line)) {
      for (std::size_t at; (at = line.find(d)) != std::string::npos;) line.erase(at, d.size());
      if (line.rfind("events", 0) == 0) line = line.substr(0, line.find(" in "));
      out += line + "\n";
    }
    return out;
  };
  CHECK(strip(fresh.text, dir + "/a") == strip(saving.text, dir + "/b"));
  CHECK(strip(fresh.text, dir + "/a") == strip(reading.text, dir + "/c"));
  CHECK(fresh.text.find("fingerprint") != std::string::npos);
}
