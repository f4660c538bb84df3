// `skysim selftest` as a user runs it: the table, the exit status, and a table that does not
// depend on how many jobs ran it.
#include <catch2/catch.hpp>
#include <string>

#include "run_skysim.hpp"

namespace {

using skysim::testing::Output;
using skysim::testing::run_skysim;

std::size_t count(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("skysim selftest --quick passes and prints one table") {
  Output one = run_skysim("selftest --quick --jobs 1");
  INFO(one.text);
  CHECK(one.status == 0);
  CHECK(one.text.find("claim") != std::string::npos);
  CHECK(one.text.find("Erlang C") != std::string::npos);
  CHECK(one.text.find("Little's law") != std::string::npos);
  CHECK(one.text.find("exact MVA") != std::string::npos);
  CHECK(count(one.text, "FAIL") == 0);
  // The April replay's figures are in the table: held ones pass (the default's tenfold, Go's
  // semantics on EEVDF), the three the model does not reproduce (the cadence: no kill at the
  // replay's rate; the post-mortem's account and equally shared cores: x100+) are measured and
  // shown as known departures.
  CHECK(one.text.find("April: a healthy data-plane process has ~150 OS threads") !=
        std::string::npos);
  CHECK(count(one.text, "DEPARTS (known: docs/april-2026.md)") == 3);
  // The lossy cuts at 1,350 writes/s per bot, below their regime on Seastar shards.
  CHECK(count(one.text, "DEPARTS (known: docs/fanout.md)") >= 2);
  CHECK(one.text.find("April, Go's semantics (fd write lock, sysmon parks), cores shared "
                      "equally: threads climb") != std::string::npos);
  CHECK(one.text.find("April, the post-mortem's account (variant postmortem)") !=
        std::string::npos);
  CHECK(one.text.find("April as a composition") == std::string::npos);  // the default is one
  CHECK(count(one.text, "PASS") >= 30);

  // Parallel replications write their own slots: the table is the same for any --jobs.
  Output two = run_skysim("selftest --quick --jobs 2");
  CHECK(two.status == 0);
  CHECK(two.text == one.text);
}

TEST_CASE("skysim selftest rejects bad options with exit status 2") {
  CHECK(run_skysim("selftest --jobs 0").status == 2);
  CHECK(run_skysim("selftest --seeds 1").status == 2);
  Output missing = run_skysim("selftest --scenario-dir /nonexistent/dir");
  CHECK(missing.status == 2);
  CHECK(missing.text.find("/nonexistent/dir") != std::string::npos);
}
