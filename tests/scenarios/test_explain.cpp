#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "scenarios/explain.hpp"
#include "scenarios/program.hpp"

using namespace skysim::scenarios;

TEST_CASE("docs/scenario-reference.md is generated from the registry and up to date") {
  const std::string path = std::string(SKYSIM_SOURCE_DIR) + "/docs/scenario-reference.md";
  if (std::getenv("SKYSIM_REGENERATE_DOCS")) {
    std::ofstream(path) << reference_markdown(builtin_registry());
  }
  std::ifstream f(path);
  REQUIRE(f);
  std::stringstream ss;
  ss << f.rdbuf();
  INFO("regenerate: scripts/gen-scenario-reference.sh, or SKYSIM_REGENERATE_DOCS=1 test_scenarios");
  CHECK(ss.str() == reference_markdown(builtin_registry()));
}

TEST_CASE("explain prints every declared parameter of a kind") {
  const ServiceKind* k = builtin_registry().find("queue-server");
  REQUIRE(k);
  std::string text = explain_kind(*k, false);
  for (const auto& p : k->params) CHECK(text.find(p.name) != std::string::npos);
  CHECK(explain_kinds(builtin_registry()).find("queue-server") != std::string::npos);
}

TEST_CASE("explain go-service says what a deploy may change, from the rule the loader applies") {
  const ServiceKind* k = builtin_registry().find("go-service");
  REQUIRE(k);
  const std::string text = explain_kind(*k, false);
  CHECK_THAT(text, Catch::Contains("is a deploy") &&
                       Catch::Contains("a client's driver and local; a step's client, endpoint "
                                       "and cold_clients"));
  // Every name the rule fixes is refused by the loader's check, and a neighbour is not.
  Program p;
  ClientSpec c;
  c.name = "mc";
  c.path = "x.program.clients.mc";
  p.clients.push_back(c);
  std::string why;
  CHECK(deployable_param(p, c.path, "driver", why) == nullptr);
  CHECK(deployable_param(p, c.path, "local", why) == nullptr);
  CHECK(deployable_param(p, c.path, "dialer", why) != nullptr);
}

TEST_CASE("every declared default parses and lies in its range") {
  for (const ServiceKind* k : builtin_registry().kinds()) {
    INFO(k->name);
    // A scenario with one host of the kind and no params: defaults fill in, or the error
    // names the required ones.
    for (const auto& p : k->params) {
      INFO(p.name);
      CHECK(!p.doc.empty());
    }
  }
}
