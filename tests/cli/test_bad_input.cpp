// Bad input to the CLI gets one clear line and a non-zero exit (issue 2); the demo scenario
// replays to the same fingerprint with the same seed and to another with another seed.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
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
                        Case{"run /no/such/scenario.yaml", "cannot open"}}) {
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

TEST_CASE("compare checks every variant, --until and the seed count before any run") {
  const std::string out = "/tmp/skysim-cli-compare-" + std::to_string(::getpid());
  struct Case {
    std::string args, says;
  };
  for (const Case& c :
       {Case{"--vary datacenters.east.services.web.params.wokers=4,5 --seeds 1..3",
             "unknown key 'wokers'; did you mean 'workers'?"},
        Case{"--variant 'a:' --variant 'b: datacenters.east.services.web.params.workers=-1' "
             "--seeds 1..3",
             "compare: variant b does not load"},
        Case{"--vary datacenters.east.services.web.params.workers=4,5 --seeds 1..3 --until 99h",
             "--until 99h is outside the scenario's span"},
        Case{"--vary datacenters.east.services.web.params.workers=4,5 --seeds 1..3 "
             "--set datacenters.east.services.web.params.queue_capacity=x",
             "--set datacenters.east.services.web.params.queue_capacity"},
        Case{"--vary datacenters.east.services.web.params.workers=4,5 --seeds 7",
             "needs at least 2 seeds"},
        Case{"--vary datacenters.east.services.web.params.workers=4,5 --seeds 1..2 "
             "--fork-at 2026-04-06T00:03:00Z --until +2m",
             "--until +2m is not after --fork-at"}}) {
    std::filesystem::remove_all(out);
    Output o = run_skysim("compare " + kDemo + " " + c.args + " --no-plots --out " + out);
    INFO(c.args << " -> " << o.text);
    CHECK(o.status == 2);
    CHECK(o.text.find(c.says) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out + "/runs"));  // nothing ran
  }
  std::filesystem::remove_all(out);
}

TEST_CASE("compare passes --set and --until to every real run and the variant's value wins") {
  const std::string out = "/tmp/skysim-cli-compare-set-" + std::to_string(::getpid());
  std::filesystem::remove_all(out);
  const std::string p = "datacenters.east.services.web.params.";
  // From the start, and forked at 00:01 (the --set values hold from time 0 in the prefix too).
  bool forked = GENERATE(false, true);
  Output o = run_skysim("compare " + kDemo + " --variant 'a:' --variant 'b: " + p +
                        "workers=5' --set " + p + "workers=6 --set " + p +
                        "queue_capacity=77 --until +2m --seeds 1..2 --no-plots --out " + out +
                        " --metric 'queue.arrivals{host=east/web/0}'" +
                        (forked ? " --fork-at +1m" : ""));
  INFO(o.text);
  REQUIRE(o.status == 0);
  auto slurp = [](const std::string& path) {
    std::string text;
    FILE* f = std::fopen(path.c_str(), "r");
    REQUIRE(f != nullptr);
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
    return text;
  };
  for (const char* run : {"v000-seed1", "v000-seed2", "v001-seed1", "v001-seed2"}) {
    INFO(run);
    std::string dir = out + "/runs/" + run;
    CHECK(slurp(dir + "/summary.json").find("\"simulated_end\":\"2026-04-06T00:02:00Z\"") !=
          std::string::npos);
    std::string yaml = slurp(dir + "/scenario.resolved.yaml");
    CHECK(yaml.find("queue_capacity: 77") != std::string::npos);
    CHECK(yaml.find(run[3] == '0' ? "workers: 6" : "workers: 5") != std::string::npos);
  }
  std::filesystem::remove_all(out);
}
