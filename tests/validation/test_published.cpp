// The published figures the selftest recomputes, each through the model code that claims it.
#include <catch2/catch.hpp>

#include "validation/published_checks.hpp"

using namespace skysim::validation;

TEST_CASE("published figures hold at the quick lengths") {
  SelftestOptions o;
  o.quick = true;
  PublishedChecks p = published_checks(o);
  REQUIRE(p.replicated.size() == 3);
  REQUIRE_FALSE(p.direct.empty());
  for (const auto& c : p.replicated) {
    CheckRow row = judge(c, bonferroni_confidence(40));
    INFO(row.claim << ": expected " << row.expected << ", simulated " << row.simulated);
    CHECK(row.pass);
    CHECK(c.per_seed.size() == 10);
  }
  for (const auto& c : p.direct) {
    INFO(c.claim << ": " << c.simulated);
    CHECK(c.pass);
  }
}
