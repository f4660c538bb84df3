// Bad input to the CLI gets one clear line and a non-zero exit (issue 2); the demo scenario
// replays to the same fingerprint with the same seed and to another with another seed.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
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
                        Case{"run /no/such/scenario.yaml", "no such file"},
                        // What newcomers tripped on (issue 19):
                        Case{"run " + std::string(SKYSIM_SOURCE_DIR) + "/scenarios",
                             "is a directory, not a scenario file"},
                        Case{"run " + kDemo + " --seed -1", "--seed -1: a seed cannot be negative"},
                        Case{"run " + kDemo + " --seed 18446744073709551616", "is too large"},
                        Case{"run " + kDemo + " --set foo.bar=3", "--set foo.bar: foo: unknown key"},
                        Case{"run " + kDemo + " --set sources.readers.deadline=-1s",
                             "--set sources.readers.deadline: invalid duration '-1s': durations "
                             "cannot be signed (expected a duration like"},
                        Case{"run " + kDemo + " --until 2030-01-01T00:00:00Z",
                             "outside the run, which spans 2026-04-06T00:00:00Z .. "
                             "2026-04-06T00:10:00Z (10m)"},
                        Case{"run " + kDemo + " --out /proc/skysim-no/such", "--out /proc/skysim-no/such: cannot create"},
                        Case{"run " + kDemo + " --out " + kDemo, "exists and is not a directory"},
                        Case{"run " + std::string(SKYSIM_SOURCE_DIR) +
                                 "/scenarios/april-2026-outage.yaml --set "
                                 "datacenters.east.services.dataplane.program.handlers.GetPostRecord.0.errgroup.do.1."
                                 "cache_get.cold_clients=batch-servce",
                             "no source has client 'batch-servce'; did you mean 'batch-service'?"},
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

TEST_CASE("a duplicated 'expected' is said once") {
  Output o = run_skysim("run " + kDemo + " --set sources.readers.deadline=-1s");
  std::size_t first = o.text.find("expected");
  REQUIRE(first != std::string::npos);
  CHECK(o.text.find("expected", first + 1) == std::string::npos);
}

TEST_CASE("the largest seed runs and is written back exactly") {
  Output o = run_skysim("run " + kDemo +
                        " --quiet --until 1m --seed 18446744073709551615 --out /tmp/skysim-cli-seed");
  REQUIRE(o.status == 0);
  Output j = run_skysim("report --help >/dev/null; grep -o '\"seed\":[0-9]*' "
                        "/tmp/skysim-cli-seed/summary.json; true");
  CHECK(j.text.find("\"seed\":18446744073709551615") != std::string::npos);
}

TEST_CASE("Ctrl-C ends a run with its outputs so far, and says so") {
  const std::string april = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/april-2026-outage.yaml";
  const std::string dir = "/tmp/skysim-cli-interrupted";
  std::string script = "rm -rf " + dir + "; " + std::string(SKYSIM_BINARY) + " run " + april +
                       " --quiet --out " + dir +
                       " & pid=$!; sleep 3; kill -INT $pid; wait $pid; echo status=$?";
  std::string cmd = "sh -c '" + script + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string text;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  pclose(p);
  INFO(text);
  CHECK(text.find("interrupted at 2026-04-") != std::string::npos);
  CHECK(text.find("the outputs hold the run so far") != std::string::npos);
  CHECK(text.find("status=130") != std::string::npos);
  Output j = run_skysim("--version >/dev/null; cat " + dir + "/summary.json; true");
  CHECK(j.text.find("\"complete\":false") != std::string::npos);
  CHECK(j.text.find("\"stopped_early\":\"interrupted (SIGINT)\"") != std::string::npos);
  Output csv = run_skysim("--version >/dev/null; wc -l < " + dir + "/timeseries.csv; true");
  CHECK(std::stoi(csv.text) > 2);  // rows up to the interruption
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
             "--until 99h is outside the run, which spans"},
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

TEST_CASE("compare --fork-at deploys a go-service program change at the fork, and refuses wiring") {
  // The April band-aid forked at Monday 16:30 of the file's `bandaid` window (seed 1): the
  // branch that changes the gomemcache client's dialer replaces each process at the fork, as a
  // timeline deploy does; the one that keeps it runs on.
  const std::string out = "/tmp/skysim-cli-fork-deploy-" + std::to_string(::getpid());
  const std::string april = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/april-2026-outage.yaml";
  const std::string mc = "datacenters.east.services.dataplane.program.clients.mc.";
  std::filesystem::remove_all(out);
  Output o = run_skysim("compare " + april + " --set variant=bandaid --set 'timeline=[]' " +
                        "--until 2026-04-06T16:32:00Z --fork-at 2026-04-06T16:30:00Z " +
                        "--variant 'as-was:' --variant 'bandaid: " + mc +
                        "dialer=random_loopback' --seeds 1..2 --no-plots --out " + out);
  INFO(o.text);
  REQUIRE(o.status == 0);
  auto phases = [&](const std::string& run) {
    std::ifstream in(out + "/runs/" + run + "/summary.json");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  CHECK(phases("v001-seed1").find("deploy: clients.mc.dialer = random_loopback") !=
        std::string::npos);
  CHECK(phases("v000-seed1").find("deploy:") == std::string::npos);
  std::filesystem::remove_all(out);
  // Which clients' keys are cold is wiring the loader checks, not a deploy: one clear error,
  // nothing run.
  Output bad = run_skysim(
      "compare " + april + " --set variant=bandaid --set 'timeline=[]' " +
      "--fork-at 2026-04-06T16:30:00Z --variant 'a:' --variant 'b: datacenters.east.services." +
      "dataplane.program.handlers.GetPostRecord.0.errgroup.do.1.cache_get.cold_clients=app-users' " +
      "--seeds 1..2 --no-plots --out " + out);
  INFO(bad.text);
  CHECK(bad.status == 2);
  CHECK(bad.text.find("cannot change at the fork") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out + "/runs"));
  std::filesystem::remove_all(out);
}
