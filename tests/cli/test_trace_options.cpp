// skysim run --trace and its selection options: bad values get one clear line and exit 2;
// a capped trace warns on stdout with how many events were dropped and how to narrow it.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "run_skysim.hpp"

namespace {

using skysim::testing::Output;
using skysim::testing::run_skysim;

const std::string kDemo = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/demo.yaml";
const std::string kAprilWindow =
    std::string(SKYSIM_SOURCE_DIR) +
    "/scenarios/april-2026-outage.yaml --set epoch=2026-04-06T08:00:00Z --set duration=10m "
    "--set 'timeline=[]' --set sources.batch-service.start=2026-04-06T08:00:00Z "
    "--set sources.batch-service.rate=0.05/s";

// A fresh directory, removed at the end of the test case (also when it fails).
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "skysim-trace-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("trace options: bad values get one clear line and exit 2") {
  TempDir dir;
  const std::string out = " --quiet --out " + (dir.path / "run").string();
  const std::string trace = " --trace " + (dir.path / "t.json").string();
  struct Case {
    std::string args, says;
  };
  for (const Case& c : {
           Case{kDemo + out + " --trace-from 1m", "need --trace FILE"},
           Case{kDemo + out + trace + " --trace-from soon", "--trace-from: "},
           Case{kDemo + out + trace + " --trace-until 99d", "outside the scenario's span"},
           Case{kDemo + out + trace + " --trace-from 2m --trace-until 1m", "is before --trace-from"},
           Case{kDemo + out + trace + " --trace-filter rpc,,gc", "empty term"},
           Case{kDemo + out + trace + " --trace-filter north/", "neither a category"},
           Case{kDemo + out + trace + " --trace-max-events 0", "at least 1"},
       }) {
    Output o = run_skysim("run " + c.args);
    INFO(c.args << " -> " << o.text);
    CHECK(o.status == 2);
    CHECK(o.text.find(c.says) != std::string::npos);
    CHECK(!std::filesystem::exists(dir.path / "t.json"));
  }
}

TEST_CASE("trace options: a capped April trace warns on stdout how much it dropped") {
  TempDir dir;
  const std::string file = (dir.path / "april.json").string();
  Output o = run_skysim("run " + kAprilWindow + " --quiet --out " + (dir.path / "run").string() +
                        " --trace " + file + " --trace-max-events 5000");
  INFO(o.text);
  CHECK(o.status == 0);
  CHECK(o.text.find("warning: the trace reached its cap of 5000 events and dropped ") !=
        std::string::npos);
  CHECK(o.text.find("--trace-from/--trace-until or --trace-filter") != std::string::npos);
  CHECK(std::filesystem::exists(file));

  // Narrowed to one host's RPCs and cache calls over one minute, the same cap is enough.
  Output narrow = run_skysim("run " + kAprilWindow + " --quiet --out " +
                             (dir.path / "run").string() + " --trace " + file +
                             " --trace-max-events 50000 --trace-from 2026-04-06T08:05:00Z "
                             "--trace-until 6m --trace-filter rpc,memcached,west/");
  INFO(narrow.text);
  CHECK(narrow.status == 0);
  CHECK(narrow.text.find("warning") == std::string::npos);
  // Tracing only observes: the run without a trace prints the same fingerprint.
  Output plain = run_skysim("run " + kAprilWindow + " --quiet --out " + (dir.path / "run").string());
  const auto fp = [](const std::string& t) { return t.substr(t.rfind("fingerprint "), 28); };
  CHECK(fp(narrow.text) == fp(plain.text));
  CHECK(fp(o.text) == fp(plain.text));
}
