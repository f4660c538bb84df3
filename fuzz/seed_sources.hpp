#pragma once
// Where a campaign's seeds come from, so CI does not run the same seeds on every change:
//   @FILE     the pinned regression seeds (every seed that ever failed, each with its reason)
//   fresh:N   N seeds from a range derived from the build's commit (a new range per commit)
//   1..200, 7 plain seeds (analysis::parse_seeds)
// mixed with commas: "@tests/fuzz/regressions.txt,fresh:2000". Duplicates keep their first place.
#include <cstdint>
#include <string>
#include <vector>

namespace skysim::fuzz {

struct SeedList {
  std::vector<std::uint64_t> seeds;
  std::string described;  // one line for the report: "12 pinned (FILE) + fresh 4711..6710 (commit X)"
};

// Throws std::invalid_argument with "FILE:LINE: ..." for a bad regression line (a seed without
// a reason, a seed that is not a number) and a message for a bad token.
SeedList expand_seed_sources(const std::string& text, const std::string& commit);

// The first seed of commit's fresh range: above every hand-picked seed (>= 1,000,000), below
// 10^10 so it reads back as typed.
std::uint64_t fresh_base(const std::string& commit);

}  // namespace skysim::fuzz
