// Named variants of a scenario (`variants:` + `variant: NAME` or `--set variant=NAME`): the
// variant's settings are applied before the document is read, the command line's --set still
// wins, and a bad variant gets one located error.
#include <catch2/catch.hpp>

#include "scenario_fixtures.hpp"

using namespace skysim::scenarios;
using namespace skysim::scenarios::testing;

namespace {

const std::string kWithVariants = std::string(kValidScenario) + R"(variants:
  slow:
    note: fewer workers and a longer run
    set:
      datacenters.east.services.web.params.workers: 1
      duration: 5m
  broken:
    set: [1, 2]
)";

LoadOptions sets(const std::vector<std::string>& overrides) {
  LoadOptions o;
  for (const auto& s : overrides) o.overrides.push_back(parse_override(s));
  return o;
}

double workers(const Scenario& s) {
  return s.service("east", "web")->host_params.at(0).get("workers").number;
}

}  // namespace

TEST_CASE("a variant chosen on the command line applies its settings") {
  // Unchosen, the variants change nothing (the broken one is reported only when chosen or
  // when its shape is wrong: here `set` is a list, which the checker reports).
  std::string plain = errors_of(kWithVariants);
  CHECK(plain.find("variants.broken.set: must be a map of path: value") != std::string::npos);
  const std::string good = with("  broken:\n    set: [1, 2]\n", "", kWithVariants);
  Scenario base = load_scenario_text(good, "t.yaml", builtin_registry(), {});
  CHECK(workers(base) == 4);
  CHECK(base.duration == 60'000'000'000);
  Scenario slow = load_scenario_text(good, "t.yaml", builtin_registry(), sets({"variant=slow"}));
  CHECK(workers(slow) == 1);
  CHECK(slow.duration == 300'000'000'000);
  // The command line wins over the variant, whatever the order of the --set's.
  Scenario both = load_scenario_text(
      good, "t.yaml", builtin_registry(),
      sets({"datacenters.east.services.web.params.workers=3", "variant=slow"}));
  CHECK(workers(both) == 3);
  CHECK(both.duration == 300'000'000'000);
  // Chosen in the file itself.
  Scenario in_file =
      load_scenario_text(good + "variant: slow\n", "t.yaml", builtin_registry(), {});
  CHECK(workers(in_file) == 1);
}

TEST_CASE("an unknown or malformed variant gets one located error") {
  const std::string good = with("  broken:\n    set: [1, 2]\n", "", kWithVariants);
  std::string cli = errors_of(good, sets({"variant=slwo"}));
  INFO(cli);
  CHECK(cli.find("--set variant: unknown variant 'slwo'; did you mean 'slow'?") !=
        std::string::npos);
  std::string file = errors_of(good + "variant: fast\n");
  INFO(file);
  CHECK(file.find("t.yaml:24:10: variant: unknown variant 'fast'") != std::string::npos);
  std::string none = errors_of(std::string(kValidScenario) + "variant: slow\n");
  CHECK(none.find("unknown variant 'slow'") != std::string::npos);
  std::string bad_path = errors_of(with("duration: 5m", "duraton: 5m", good), sets({"variant=slow"}));
  INFO(bad_path);
  CHECK(bad_path.find("unknown key 'duraton'") != std::string::npos);
  std::string broken = errors_of(kWithVariants, sets({"variant=broken"}));
  CHECK(broken.find("variants.broken.set: must be a map of path: value") != std::string::npos);
}

TEST_CASE("a variant may set a list or a map, such as a timeline of its own, checked at its line") {
  const std::string text = std::string(kValidScenario) + R"(variants:
  surge:
    note: a surge at +30s in a longer run
    set:
      duration: 2m
      timeline:
        - at: +30s
          set: {sources.r.rate: 500/s}
)";
  Scenario plain = load_scenario_text(text, "t.yaml", builtin_registry(), {});
  CHECK(plain.timeline.empty());
  Scenario surge = load_scenario_text(text, "t.yaml", builtin_registry(), sets({"variant=surge"}));
  CHECK(surge.duration == 120'000'000'000);
  REQUIRE(surge.timeline.size() == 1);
  CHECK(surge.timeline[0].at == 30'000'000'000);
  REQUIRE(surge.timeline[0].actions.size() == 1);
  CHECK(surge.timeline[0].actions[0].type == ActionType::SetSourceRate);
  CHECK(surge.timeline[0].actions[0].value.number == 500);
  // The variant's list now stands at its path, and no node is reachable by two paths (the
  // resolved document, scenario.resolved.yaml, has no anchors).
  CHECK(YAML::Dump(surge.document).find('&') == std::string::npos);
  // What is wrong inside the variant's list is reported at its line in the file.
  std::string late = errors_of(with("at: +30s", "at: +3m", text), sets({"variant=surge"}));
  INFO(late);
  CHECK(late.find("t.yaml:24:") != std::string::npos);
  CHECK(late.find("after the end of the run") != std::string::npos);
}
