// summary.json's stream_draws: big families of numbered streams fold to count + draws + digest.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/stream_families.hpp"

using skysim::scenarios::fold_stream_families;
using skysim::scenarios::kFoldAbove;
using skysim::scenarios::StreamFamily;

namespace {

std::vector<std::pair<std::string, std::uint64_t>> with_workers(std::size_t n, std::uint64_t bump) {
  std::vector<std::pair<std::string, std::uint64_t>> d;
  d.emplace_back("h/strings", 5);
  for (std::size_t i = 0; i < n; ++i) d.emplace_back("h/worker/" + std::to_string(i), 3 + (i == 7 ? bump : 0));
  d.emplace_back("source/a", 2);
  std::sort(d.begin(), d.end());  // Simulation::stream_draws is in name order
  return d;
}

}  // namespace

TEST_CASE("a small family is listed stream by stream, a big one folds") {
  auto small = fold_stream_families(with_workers(kFoldAbove, 0));
  CHECK(small.size() == kFoldAbove + 2);

  auto big = fold_stream_families(with_workers(kFoldAbove + 1, 0));
  REQUIRE(big.size() == 3);
  CHECK(big[0].name == "h/strings");
  CHECK(big[1].name == "h/worker/*");
  CHECK(big[2].name == "source/a");
  const auto& f = std::get<StreamFamily>(big[1].value);
  CHECK(f.streams == kFoldAbove + 1);
  CHECK(f.draws == 3 * (kFoldAbove + 1));
  CHECK(std::get<std::uint64_t>(big[0].value) == 5);
}

TEST_CASE("one member drawing differently changes its family's digest, not its neighbours'") {
  auto a = fold_stream_families(with_workers(100, 0));
  auto b = fold_stream_families(with_workers(100, 1));
  auto c = fold_stream_families(with_workers(100, 0));
  const auto& fa = std::get<StreamFamily>(a[1].value);
  const auto& fb = std::get<StreamFamily>(b[1].value);
  CHECK(fa.digest == std::get<StreamFamily>(c[1].value).digest);  // deterministic
  CHECK(fa.digest != fb.digest);
  CHECK(fb.draws == fa.draws + 1);
  CHECK(std::get<std::uint64_t>(a[0].value) == std::get<std::uint64_t>(b[0].value));
}
