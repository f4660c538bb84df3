// skysim run's "reproduce with:" line names the run it stopped: the seed and every --set in order
// (a counterfactual without its overrides is another run), and the event budget when that was the
// reason. Running the printed line gives the same fingerprint.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "run_skysim.hpp"

namespace {

using skysim::testing::Output;
using skysim::testing::run_skysim;

// The fan-out as parts.
const std::string kBase = std::string(SKYSIM_SOURCE_DIR) + "/scenarios/fuzz/fanout.yaml";

std::string after(const std::string& text, const std::string& marker) {
  auto at = text.find(marker);
  if (at == std::string::npos) return {};
  auto end = text.find('\n', at);
  return text.substr(at + marker.size(), end - at - marker.size());
}

}  // namespace

TEST_CASE("run: the event-budget reproducer keeps the seed, every --set and the budget") {
  const auto out = (std::filesystem::temp_directory_path() / ("skysim-repro-" + std::to_string(getpid()))).string();
  Output o = run_skysim("run " + kBase + " --seed 2 --set duration=3s --set sources.readers.rate=100/s"
                        " --max-events 500 --quiet --out " + out);
  INFO(o.text);
  CHECK(o.status == 4);
  const std::string line = after(o.text, "reproduce with: ");
  CHECK(line == "skysim run " + kBase +
                    " --seed 2 --set duration=3s --set sources.readers.rate=100/s --max-events 500");
  // The printed line is the same run: its fingerprint matches.
  REQUIRE(line.rfind("skysim ", 0) == 0);
  Output again = run_skysim(line.substr(7) + " --quiet --out " + out);
  CHECK(again.status == 4);
  CHECK(after(again.text, "fingerprint ").substr(0, 16) == after(o.text, "fingerprint ").substr(0, 16));
  std::filesystem::remove_all(out);
}
