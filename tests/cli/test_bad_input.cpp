// Bad input to the CLI gets one clear line and a non-zero exit (issue 2); the demo scenario
// replays to the same fingerprint with the same seed and to another with another seed.
#include <catch2/catch.hpp>
#include <string>

#include "run_skysim.hpp"

namespace {

using skysim::testing::Output;
using skysim::testing::run_skysim;

std::size_t lines(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

const std::string kDemo = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/demo.yaml";

std::string fingerprint_line(const std::string& text) {
  auto at = text.rfind("fingerprint ");
  return at == std::string::npos ? "" : text.substr(at, 29);
}

}  // namespace

TEST_CASE("bad command lines get one clear line and exit 2") {
  struct Case {
    std::string args, says;
  };
  for (const Case& c : {Case{"frobnicate", "unknown subcommand 'frobnicate'"},
                        Case{"run " + kDemo + " --until '15 ms'", "no spaces allowed"},
                        Case{"run " + kDemo + " --until -3s", "invalid"},
                        Case{"bench phold --lps 8 --init 1 --until -3s", "cannot be signed"},
                        Case{"run /no/such/scenario.yaml", "cannot open"},
                        Case{"openmetrics /no/such/run", "no such directory: /no/such/run"},
                        Case{"openmetrics " + std::string(SKYSIM_SOURCE_DIR) + "/scenarios",
                             "timeseries.csv is missing"}}) {
    Output o = run_skysim(c.args);
    INFO(c.args << " -> " << o.text);
    CHECK(o.status != 0);
    CHECK(o.text.find(c.says) != std::string::npos);
    CHECK(lines(o.text) == 1);
  }
}

TEST_CASE("the demo scenario replays bit for bit by seed") {
  Output a = run_skysim("run " + kDemo + " --quiet --out /tmp/skysim-cli-demo-a");
  Output b = run_skysim("run " + kDemo + " --quiet --out /tmp/skysim-cli-demo-b");
  Output c = run_skysim("run " + kDemo + " --quiet --seed 2 --out /tmp/skysim-cli-demo-c");
  REQUIRE(a.status == 0);
  CHECK(fingerprint_line(a.text) == fingerprint_line(b.text));
  CHECK(fingerprint_line(a.text) != fingerprint_line(c.text));
}
