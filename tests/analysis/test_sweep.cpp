#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>

#include "analysis/sweep.hpp"

using namespace skysim::analysis;

namespace {

SweepSpec two_by_three() {
  SweepSpec s;
  s.scenario = "scenarios/fanout.yaml";
  s.vary = {parse_vary("fanout.policy=full,lossy,onread"), parse_vary("scale=0.5,1")};
  s.seeds = parse_seeds("1..4");
  return s;
}

}  // namespace

TEST_CASE("command-line forms of --vary, --seeds and --shard") {
  auto v = parse_vary("fanout.policy=full,lossy");
  CHECK(v.path == "fanout.policy");
  CHECK(v.values == std::vector<std::string>{"full", "lossy"});
  CHECK(parse_seeds("1..3,7,10..11") == std::vector<std::uint64_t>{1, 2, 3, 7, 10, 11});
  CHECK(parse_seeds("0") == std::vector<std::uint64_t>{0});
  auto sh = parse_shard("2/3");
  CHECK(sh.index == 2);
  CHECK(sh.count == 3);

  CHECK_THROWS_WITH(parse_vary("fanout.policy"), Catch::Contains("path=value1,value2"));
  CHECK_THROWS_WITH(parse_vary("p=a,,b"), Catch::Contains("empty value"));
  CHECK_THROWS_WITH(parse_vary("p=a,b,a"), Catch::Contains("given twice"));
  CHECK_THROWS_WITH(parse_seeds("5..1"), Catch::Contains("backwards"));
  CHECK_THROWS_WITH(parse_seeds("1..x"), Catch::Contains("'x' is not a seed"));
  CHECK_THROWS_WITH(parse_seeds("1,2,1"), Catch::Contains("given twice"));
  CHECK_THROWS_WITH(parse_shard("4/3"), Catch::Contains("exceeds"));
  CHECK_THROWS_WITH(parse_shard("0/3"), Catch::Contains("1 <= i <= n"));
  CHECK_THROWS_AS(parse_shard("1-3"), std::invalid_argument);
}

TEST_CASE("variants are the cross product, the first --vary varying slowest") {
  auto s = two_by_three();
  auto vs = s.variants();
  REQUIRE(vs.size() == 6);
  CHECK(vs[0].label() == "fanout.policy=full scale=0.5");
  CHECK(vs[1].label() == "fanout.policy=full scale=1");
  CHECK(vs[2].label() == "fanout.policy=lossy scale=0.5");
  CHECK(vs[5].label() == "fanout.policy=onread scale=1");
  SweepSpec base;
  base.seeds = {1};
  CHECK(base.variants().size() == 1);
  CHECK(base.variants()[0].label() == "base");
}

TEST_CASE("runs are variant-major and shards partition them") {
  auto s = two_by_three();
  auto runs = s.runs();
  REQUIRE(runs.size() == 24);
  CHECK(runs[5].variant == 1);
  CHECK(runs[5].seed == 2);
  for (int count : {1, 3, 5, 24, 30}) {
    std::multiset<int> covered;
    for (int i = 1; i <= count; ++i) {
      Shard sh{i, count};
      for (const auto& r : runs) {
        if (sh.contains(r.index)) {
          covered.insert(r.index);
        }
      }
    }
    INFO("shards: " << count);
    CHECK(covered.size() == runs.size());  // every run exactly once
    CHECK(std::set<int>(covered.begin(), covered.end()).size() == runs.size());
  }
}

TEST_CASE("the sweep description survives JSON and a run has a one-line reproducer") {
  auto s = two_by_three();
  s.metrics = {"latency_ms"};
  auto back = SweepSpec::from_json(Json::parse(s.to_json().dump()));
  CHECK(back.to_json().dump() == s.to_json().dump());
  CHECK(back.variants()[3].label() == s.variants()[3].label());
  CHECK(reproducer(s, s.runs()[9]) ==
        "skysim run scenarios/fanout.yaml --seed 2 --set fanout.policy=lossy --set scale=0.5");
  s.scenario = "my scenario.yaml";
  CHECK(reproducer(s, s.runs()[0]).rfind("skysim run 'my scenario.yaml' --seed 1", 0) == 0);
}

TEST_CASE("named variants change several parameters each and survive JSON") {
  SweepSpec s;
  s.scenario = "scenarios/april-2026-outage.yaml";
  s.named = {parse_variant("as-was:"),
             parse_variant("limit-50: a.limit=50  b.limit=50"),
             parse_variant(" band-aid-0900 : timeline.1.at=2026-04-06T09:00:00Z")};
  s.seeds = parse_seeds("1..2");
  auto vs = s.variants();
  REQUIRE(vs.size() == 3);
  CHECK(vs[0].label() == "as-was");
  CHECK(vs[0].overrides.empty());
  CHECK(vs[1].overrides.size() == 2);
  CHECK(vs[2].label() == "band-aid-0900");
  CHECK(s.runs().size() == 6);
  CHECK(reproducer(s, s.runs()[3]) ==
        "skysim run scenarios/april-2026-outage.yaml --seed 2 --set a.limit=50 --set b.limit=50");
  auto back = SweepSpec::from_json(Json::parse(s.to_json().dump()));
  CHECK(back.to_json().dump() == s.to_json().dump());
  CHECK(back.variants()[1].label() == "limit-50");

  CHECK_THROWS_WITH(parse_variant("no-colon a=1"), Catch::Contains("no ':'"));
  CHECK_THROWS_WITH(parse_variant(": a=1"), Catch::Contains("empty name"));
  CHECK_THROWS_WITH(parse_variant("x: a"), Catch::Contains("not path=value"));
  CHECK_THROWS_WITH(parse_variant("x: a=1 a=2"), Catch::Contains("set twice"));
}
