#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "fuzz/perturbation.hpp"
#include "fuzz/shrinker.hpp"
#include "scenarios/loader.hpp"

using namespace skysim;

namespace {

scenarios::Scenario demo() {
  return scenarios::load_scenario_file(std::string(SKYSIM_SOURCE_DIR) + "/scenarios/demo.yaml",
                                       scenarios::builtin_registry());
}

}  // namespace

TEST_CASE("a fuzz seed alone decides the fault world") {
  auto base = demo();
  auto a = fuzz::draw_perturbation(base, 17);
  auto b = fuzz::draw_perturbation(base, 17);
  CHECK(a.describe() == b.describe());
  CHECK(fuzz::perturbed_yaml(base, a) == fuzz::perturbed_yaml(base, b));
  int distinct = 0;
  for (std::uint64_t s = 1; s <= 20; ++s) {
    distinct += fuzz::draw_perturbation(base, s).describe() != a.describe() ? 1 : 0;
  }
  CHECK(distinct >= 19);  // only seed 17 itself may repeat it
}

TEST_CASE("swarm testing switches every fault kind on and off across seeds") {
  auto base = demo();
  std::map<std::string, int> on;
  for (std::uint64_t s = 1; s <= 60; ++s) {
    for (const auto& f : fuzz::draw_perturbation(base, s).faults) {
      ++on[fuzz::fault_kind_name(f.kind)];
    }
  }
  for (const char* k : {"crash", "burst", "huge-batch", "param-flip"}) {
    INFO(k);
    CHECK(on[k] > 0);
  }
  bool some_without_crash = false;
  for (std::uint64_t s = 1; s <= 60 && !some_without_crash; ++s) {
    auto p = fuzz::draw_perturbation(base, s);
    some_without_crash = std::none_of(p.faults.begin(), p.faults.end(), [](const auto& f) {
      return f.kind == fuzz::FaultKind::Crash;
    });
  }
  CHECK(some_without_crash);
}

TEST_CASE("every perturbed scenario loads with its faults inside the run") {
  auto base = demo();
  for (std::uint64_t s = 1; s <= 40; ++s) {
    auto p = fuzz::draw_perturbation(base, s);
    for (const auto& f : p.faults) {
      CHECK(f.at >= 0);
      CHECK(f.at + f.length <= p.duration);
    }
    std::string yaml = fuzz::perturbed_yaml(base, p);
    INFO("seed " << s << "\n" << yaml);
    auto loaded =
        scenarios::load_scenario_text(yaml, "perturbed.yaml", scenarios::builtin_registry());
    CHECK(loaded.seed == s);
    CHECK(loaded.invariants.empty());  // every invariant on
    std::size_t crashes = 0;
    for (const auto& e : loaded.timeline) {
      for (const auto& a : e.actions) crashes += a.type == scenarios::ActionType::Crash ? 1 : 0;
    }
    std::size_t sampled = 1;  // demo's own crash
    for (const auto& f : p.faults) sampled += f.kind == fuzz::FaultKind::Crash ? 1 : 0;
    CHECK(crashes == sampled);
  }
}

TEST_CASE("the shrinker keeps only what the failure needs") {
  auto base = demo();
  fuzz::Perturbation p;
  p.duration = 10 * sim::kMinute;
  for (int i = 0; i < 5; ++i) {
    fuzz::Fault f;
    f.kind = fuzz::FaultKind::Crash;
    f.target = "east/web/" + std::to_string(i % 2);
    f.at = (i + 1) * sim::kMinute;
    f.length = 40 * sim::kSecond;
    p.faults.push_back(f);
  }
  // A stand-in failure: needs the crash at 3m lasting at least 5 s, at any rate.
  int runs = 0;
  auto fails = [&](const fuzz::Perturbation& c) {
    ++runs;
    for (const auto& f : c.faults) {
      if (f.at == 3 * sim::kMinute && f.length >= 5 * sim::kSecond) return true;
    }
    return false;
  };
  auto small = fuzz::shrink(p, fails, 200);
  REQUIRE(small.faults.size() == 1);
  CHECK(small.faults[0].at == 3 * sim::kMinute);
  CHECK(small.faults[0].length >= 5 * sim::kSecond);
  CHECK(small.faults[0].length < 10 * sim::kSecond);
  CHECK(small.duration < p.duration);
  CHECK(small.rate_factor < 1.0);
  CHECK(fails(small));
  CHECK(runs <= 200);
}

TEST_CASE("the shrinker weakens a fault to the smallest strength that still fails") {
  fuzz::Perturbation p;
  p.duration = 10 * sim::kMinute;
  for (int i = 0; i < 4; ++i) {
    fuzz::Fault f;
    f.kind = fuzz::FaultKind::DelaySpike;
    f.target = "east/web/0";
    f.at = (i + 1) * sim::kMinute;
    f.length = 20 * sim::kSecond;
    f.strength = 1600;  // ms
    p.faults.push_back(f);
  }
  // A stand-in failure: any delay spike of at least 150 ms lasting at least 2 s.
  auto fails = [](const fuzz::Perturbation& c) {
    for (const auto& f : c.faults) {
      if (f.strength >= 150 && f.length >= 2 * sim::kSecond) return true;
    }
    return false;
  };
  auto small = fuzz::shrink(p, fails, 300);
  REQUIRE(small.faults.size() == 1);
  CHECK(small.faults[0].strength >= 150);
  CHECK(small.faults[0].strength < 300);  // halving once more would pass
  CHECK(small.faults[0].length >= 2 * sim::kSecond);
  CHECK(small.faults[0].length < 4 * sim::kSecond);
  CHECK(fails(small));
}
