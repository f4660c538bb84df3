#include "fuzz/seed_sources.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "analysis/sweep.hpp"
#include "sim/rng.hpp"

namespace skysim::fuzz {
namespace {

// "SEED  reason..." per line; '#' starts a comment; blank lines are skipped.
std::vector<std::uint64_t> read_regressions(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::invalid_argument("fuzz: --seeds @" + file + ": cannot read the file");
  std::vector<std::uint64_t> out;
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    std::string where = file + ":" + std::to_string(no) + ": ";
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string seed, reason;
    if (!(words >> seed)) continue;
    std::getline(words, reason);
    if (reason.find_first_not_of(" \t") == std::string::npos) {
      throw std::invalid_argument(where + "seed " + seed +
                                  " has no reason (expected: SEED  why it is pinned)");
    }
    if (seed.find_first_not_of("0123456789") != std::string::npos || seed.size() > 19) {
      throw std::invalid_argument(where + "'" + seed + "' is not a seed (expected a number)");
    }
    out.push_back(std::stoull(seed));
  }
  if (out.empty()) throw std::invalid_argument("fuzz: --seeds @" + file + ": no seeds in it");
  return out;
}

}  // namespace

std::uint64_t fresh_base(const std::string& commit) {
  return 1'000'000 + sim::stream_seed(0, "fuzz/fresh/" + commit) % 9'000'000'000ULL;
}

SeedList expand_seed_sources(const std::string& text, const std::string& commit) {
  SeedList out;
  std::set<std::uint64_t> seen;
  auto add = [&](std::uint64_t s) {
    if (seen.insert(s).second) out.seeds.push_back(s);
  };
  std::string plain;
  std::istringstream tokens(text);
  for (std::string t; std::getline(tokens, t, ',');) {
    if (t.empty()) continue;
    std::string part;
    if (t[0] == '@') {
      auto pinned = read_regressions(t.substr(1));
      for (auto s : pinned) add(s);
      part = std::to_string(pinned.size()) + " pinned (" + t.substr(1) + ")";
    } else if (t.rfind("fresh:", 0) == 0) {
      std::string n = t.substr(6);
      if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 9 ||
          std::stoull(n) == 0) {
        throw std::invalid_argument("fuzz: --seeds " + t + ": expected fresh:N with N >= 1");
      }
      std::uint64_t base = fresh_base(commit), count = std::stoull(n);
      for (std::uint64_t s = base; s < base + count; ++s) add(s);
      part = "fresh " + std::to_string(base) + ".." + std::to_string(base + count - 1) +
             " (from commit " + commit + ")";
    } else {
      for (auto s : analysis::parse_seeds(t)) add(s);
      part = t;
    }
    out.described += (out.described.empty() ? "" : " + ") + part;
  }
  if (out.seeds.empty()) throw std::invalid_argument("fuzz: --seeds: no seeds given");
  return out;
}

}  // namespace skysim::fuzz
