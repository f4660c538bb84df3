// The scenario-free half of --fork-at: plans, the fork-and-wait loop, the summary's "fork"
// member. The prefix-fingerprint check against a plain run needs the simulator:
// tests/analysis/fork_prefix.sh (ctest analysis/fork_prefix_fingerprint).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "analysis/fork.hpp"

using namespace skysim::analysis;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const std::string& name) {
  auto d =
      fs::temp_directory_path() / ("skysim-test-fork-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

SweepSpec two_by_three() {
  SweepSpec s;
  s.scenario = "demo.yaml";
  s.vary = {parse_vary("a.b=1,2")};
  s.seeds = {5, 6, 7};
  s.fork_at = "2026-04-06T00:03:00Z";
  return s;
}

}  // namespace

TEST_CASE("fork_plans: one plan per seed, its branches are that seed's variants") {
  SweepSpec s = two_by_three();
  auto plans = fork_plans(s, s.runs(), "/r", 2);
  REQUIRE(plans.size() == 3);
  CHECK(plans[0].seed == 5);
  REQUIRE(plans[0].branches.size() == 2);
  CHECK(plans[0].branches[0].run.variant == 0);
  CHECK(plans[0].branches[1].run.variant == 1);
  CHECK(plans[0].branches[1].overrides == std::vector<Override>{{"a.b", "2"}});
  CHECK(plans[0].branches[1].dir == "/r/v001-seed5");
  CHECK(plans[2].fork_at == "2026-04-06T00:03:00Z");
  // 2 jobs over 3 seeds: seed workers take the parallelism, branches run one at a time.
  CHECK(plans[0].jobs == 1);
  // One seed: its branches get the jobs.
  SweepSpec one = s;
  one.seeds = {9};
  CHECK(fork_plans(one, one.runs(), "/r", 2)[0].jobs == 2);
}

TEST_CASE("fork_plans: a shard keeps only its runs, grouped by seed") {
  SweepSpec s = two_by_three();
  std::vector<RunSpec> shard;
  for (const auto& r : s.runs()) {
    if (Shard{2, 2}.contains(r.index)) {
      shard.push_back(r);
    }
  }
  auto plans = fork_plans(s, shard, "/r", 1);
  std::size_t branches = 0;
  for (const auto& p : plans) {
    branches += p.branches.size();
    for (const auto& b : p.branches) {
      CHECK(b.run.seed == p.seed);
      CHECK(b.run.index % 2 == 1);
    }
  }
  CHECK(branches == shard.size());
}

TEST_CASE("ForkPlan reads back what it writes; bad plans are named") {
  SweepSpec s = two_by_three();
  s.vary.push_back(parse_vary("x.y=p,q"));
  ForkPlan p = fork_plans(s, s.runs(), "/r", 1)[1];
  ForkPlan q = ForkPlan::from_json(Json::parse(p.to_json().dump()));
  CHECK(q.to_json().dump() == p.to_json().dump());
  CHECK(q.branches[3].overrides.size() == 2);
  CHECK(q.branches[3].run.seed == 6);
  // The sweep's --set (from time 0, not a change at the fork) and --until travel in the plan.
  s.sets = {{"c.d", "7"}};
  s.until = "+6m";
  ForkPlan with = ForkPlan::from_json(Json::parse(fork_plans(s, s.runs(), "/r", 1)[0].to_json().dump()));
  CHECK(with.sets == std::vector<Override>{{"c.d", "7"}});
  CHECK(with.until == "+6m");
  CHECK(with.branches[3].overrides.size() == 2);  // the branch's own changes only
  CHECK(reproducer(s, s.runs()[3]) ==
        "skysim compare demo.yaml --seeds 5 --fork-at 2026-04-06T00:03:00Z --set c.d=7 "
        "--until +6m --vary a.b=1 --vary x.y=q");
  CHECK_THROWS_WITH(ForkPlan::from_json(Json::parse(R"({"scenario":"a","seed":1,
      "fork_at":"1h","jobs":0,"branches":[]})")),
                    Catch::Contains("plan.jobs"));
  CHECK_THROWS_WITH(ForkPlan::from_json(Json::parse(R"({"scenario":"a","seed":1,
      "fork_at":"1h","jobs":1,"branches":[]})")),
                    Catch::Contains("plan.branches is empty"));
}

TEST_CASE("fork_plans refuses a sweep without --fork-at") {
  SweepSpec s = two_by_three();
  s.fork_at.clear();
  CHECK_THROWS_WITH(fork_plans(s, s.runs(), "/r", 1), Catch::Contains("no --fork-at"));
}

TEST_CASE("fork_at is part of the sweep's identity and of the reproducer") {
  SweepSpec s = two_by_three();
  SweepSpec back = SweepSpec::from_json(Json::parse(s.to_json().dump()));
  CHECK(back.fork_at == s.fork_at);
  CHECK(reproducer(s, s.runs()[3]) ==
        "skysim compare demo.yaml --seeds 5 --fork-at 2026-04-06T00:03:00Z --vary a.b=2");
  SweepSpec plain = s;
  plain.fork_at.clear();
  // Unforked sweeps keep their exact bytes (shards written before --fork-at still merge).
  CHECK(plain.to_json().dump().find("fork_at") == std::string::npos);
  CHECK(reproducer(plain, plain.runs()[3]) == "skysim run demo.yaml --seed 5 --set a.b=2");
}

TEST_CASE("fork_branches: every child starts from the parent's state and changes only its own") {
  auto dir = temp_dir("branches");
  // The "prefix": state built before the fork that every branch must see.
  std::vector<int> state{1, 2, 3};
  std::vector<std::string> logs;
  for (int i = 0; i < 4; ++i) {
    logs.push_back((dir / ("b" + std::to_string(i) + ".log")).string());
  }
  auto exits = fork_branches(4, 2, logs, [&](std::size_t i) {
    state.push_back(static_cast<int>(i) * 10);  // the branch's own change
    int sum = 0;
    for (int x : state) {
      sum += x;
    }
    std::printf("branch %zu sum %d\n", i, sum);
    return i == 3 ? 5 : 0;
  });
  REQUIRE(exits.size() == 4);
  CHECK(exits[0].exit_code == 0);
  CHECK(exits[3].exit_code == 5);
  CHECK(exits[3].describe() == "exit 5");
  CHECK(state.size() == 3);  // the parent never sees a branch's change
  for (int i = 0; i < 4; ++i) {
    std::string log = read_file_text(logs[static_cast<std::size_t>(i)]);
    CHECK(log == "branch " + std::to_string(i) + " sum " + std::to_string(6 + 10 * i) + "\n");
  }
  fs::remove_all(dir);
}

TEST_CASE("fork_branches: an exception in a branch is its exit 1 and a line in its log") {
  auto dir = temp_dir("throw");
  std::vector<std::string> logs{(dir / "a.log").string(), (dir / "b.log").string()};
  auto exits = fork_branches(2, 1, logs, [](std::size_t i) -> int {
    if (i == 1) {
      throw std::runtime_error("parameter 'hosts' is not settable");
    }
    return 0;
  });
  CHECK(exits[0].exit_code == 0);
  CHECK(exits[1].exit_code == 1);
  CHECK_THAT(read_file_text(logs[1]), Catch::Contains("not settable"));
  CHECK_THROWS_AS(fork_branches(2, 0, logs, [](std::size_t) { return 0; }), std::invalid_argument);
  CHECK_THROWS_AS(fork_branches(3, 1, logs, [](std::size_t) { return 0; }), std::invalid_argument);
  fs::remove_all(dir);
}

TEST_CASE("add_fork_to_summary keeps the summary's bytes and adds the fork member") {
  auto dir = temp_dir("summary");
  auto path = (dir / "summary.json").string();
  std::string original = "{\n  \"fingerprint\": \"00ff\",\n  \"metrics\": {\"a\": 1}\n}\n";
  write_file_text(path, original);
  add_fork_to_summary(path,
                      JsonObject{{"at", "2026-04-06T20:00:00Z"}, {"prefix_fingerprint", "abcd"}});
  std::string text = read_file_text(path);
  CHECK(text.rfind(original.substr(0, original.size() - 3), 0) == 0);
  Json j = Json::parse(text);
  CHECK(j.at("fork").at("prefix_fingerprint").as_string() == "abcd");
  CHECK(j.at("fingerprint").as_string() == "00ff");

  write_file_text(path, "{}\n");
  add_fork_to_summary(path, JsonObject{{"at", "x"}});
  CHECK(Json::parse(read_file_text(path)).at("fork").at("at").as_string() == "x");

  write_file_text(path, "[1, 2]\n");
  CHECK_THROWS_WITH(add_fork_to_summary(path, JsonObject{}), Catch::Contains("not a JSON object"));
  fs::remove_all(dir);
}
