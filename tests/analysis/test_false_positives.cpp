// The paired test's false-positive rate on real runs of scenarios/demo.yaml (ctest
// analysis/compare_false_positives; hidden from the plain test_analysis run because it needs
// the skysim binary, passed in SKYSIM_BIN). Two measurements, see docs/compare.md:
//  1. identical variants on common seeds: every per-seed difference is exactly 0, so every
//     metric must say "same" with p = 1 (not NaN) — the degenerate case the pairing creates;
//  2. the same variant on disjoint seeds (runs i and 20 + j paired): differences of
//     independent runs, where a 5 % test must flag about 5 % of the metrics that vary.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "analysis/compare_command.hpp"
#include "analysis/sweep_runner.hpp"

using namespace skysim::analysis;
namespace fs = std::filesystem;

namespace {

std::string skysim_binary() {
  const char* bin = std::getenv("SKYSIM_BIN");
  REQUIRE(bin != nullptr);  // set by the ctest entry: the skysim under test
  return bin;
}

fs::path scratch(const std::string& name) {
  auto dir = fs::temp_directory_path() /
             ("skysim-false-positives-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

CompareOptions demo_compare(const fs::path& out, const std::vector<std::string>& variants,
                            const std::string& seeds) {
  CompareOptions o;
  o.spec.scenario = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/demo.yaml";
  for (const auto& v : variants) {
    o.spec.named.push_back(parse_variant(v));
  }
  o.spec.seeds = parse_seeds(seeds);
  o.jobs = 2;
  o.out_dir = out.string();
  o.program = skysim_binary();
  o.plots = false;
  return o;
}

// runs.jsonl back into records (the header first).
std::vector<RunRecord> read_runs(const fs::path& file) {
  std::istringstream in(read_file_text(file.string()));
  std::string line;
  std::getline(in, line);
  RunsHeader h = header_from_line(line, file.string());
  std::vector<RunRecord> out;
  while (std::getline(in, line)) {
    out.push_back(from_json_line(line, file.string(), h.spec));
  }
  return out;
}

}  // namespace

TEST_CASE("paired test on identical variants and on independent seeds", "[.false-positives]") {
  auto root = scratch("");
  {
    auto opt = demo_compare(root / "same", {"a:", "b:"}, "1..20");
    std::ostringstream out, err;
    REQUIRE(run_compare(opt, out, err) == 0);
    auto tables = Json::parse(read_file_text((root / "same" / "compare.json").string()))
                      .at("tables")
                      .as_array();
    int metrics = 0, same = 0;
    for (const auto& t : tables) {
      auto row = t.at("rows").as_array().at(1);
      ++metrics;
      auto paired = row.at("paired");
      REQUIRE_FALSE(paired.is_null());
      INFO(t.at("metric").as_string());
      CHECK(paired.at("mean").as_number() == 0);
      CHECK(paired.at("p_value").as_number() == 1);  // a number: not NaN, not null
      same += paired.at("differs").as_bool() ? 0 : 1;
    }
    std::printf("identical variants, common seeds 1..20: %d of %d metrics 'same'\n", same,
                metrics);
    CHECK(metrics > 30);
    CHECK(same == metrics);  // >= 95 % required; with exact zeros nothing may differ
  }
  {
    // One variant on 40 seeds, split into two groups of 20 and paired within them: a paired
    // test of two identical variants on independent seeds. Re-pairing one split changes only
    // the sd (the mean difference is the split's), so each of the 200 tests per metric is a
    // fresh split, a fixed pseudo-random shuffle (splitmix64, seed 1): the average over splits
    // estimates the test's size for this metric.
    auto opt = demo_compare(root / "independent", {"a:"}, "1..40");
    std::ostringstream out, err;
    REQUIRE(run_compare(opt, out, err) == 0);
    auto runs = read_runs(root / "independent" / kRunsFile);
    REQUIRE(runs.size() == 40);
    std::set<std::string> names;
    for (const auto& r : runs) {
      REQUIRE(r.ok);
      for (const auto& [name, value] : r.metrics) names.insert(name);
    }
    constexpr int kSplits = 200;
    std::vector<std::vector<std::size_t>> splits;
    std::uint64_t state = 1;
    auto next = [&state] {  // splitmix64
      std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      return z ^ (z >> 31);
    };
    for (int k = 0; k < kSplits; ++k) {
      std::vector<std::size_t> order(40);
      for (std::size_t i = 0; i < 40; ++i) order[i] = i;
      for (std::size_t i = 39; i > 0; --i) std::swap(order[i], order[next() % (i + 1)]);
      splits.push_back(order);
    }
    int tests = 0, flagged = 0, constant = 0, metrics = 0;
    std::string worst;
    double worst_rate = 0;
    for (const auto& name : names) {
      std::vector<double> v;
      for (const auto& r : runs) {
        auto it = r.metrics.find(name);
        if (it != r.metrics.end()) v.push_back(it->second);
      }
      if (v.size() != 40) continue;  // a lazily created metric (host.crashes) missing somewhere
      if (std::set<double>(v.begin(), v.end()).size() == 1) {
        ++constant;  // the same on every seed: cannot give a false positive, not counted
        continue;
      }
      ++metrics;
      int mine = 0;
      for (const auto& order : splits) {
        std::vector<double> a, b;
        for (std::size_t i = 0; i < 20; ++i) {
          a.push_back(v[order[i]]);
          b.push_back(v[order[20 + i]]);
        }
        mine += paired_difference(a, b).differs ? 1 : 0;
      }
      tests += kSplits;
      flagged += mine;
      if (mine > worst_rate * kSplits) {
        worst_rate = static_cast<double>(mine) / kSplits;
        worst = name;
      }
    }
    double rate = static_cast<double>(flagged) / tests;
    std::printf("identical variants, independent seeds: %d of %d tests flagged (%.1f %%) over "
                "%d varying metrics x %d splits; %d constant metrics left out; highest: %s "
                "%.1f %%\n",
                flagged, tests, 100 * rate, metrics, kSplits, constant, worst.c_str(),
                100 * worst_rate);
    CHECK(metrics > 20);
    // The nominal level is 5 %; metrics of one run are correlated (host 0 and host 1, p90 and
    // p99), so the count varies more than a binomial would. A broken test shows far outside
    // this band: p always 1 gives 0 %, an interval too narrow gives 20 % and more.
    CHECK(rate >= 0.01);
    CHECK(rate <= 0.08);
  }
  fs::remove_all(root);
}
