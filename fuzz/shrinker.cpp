#include "fuzz/shrinker.hpp"

#include <algorithm>

namespace skysim::fuzz {
namespace {

// The candidate cut to a run of `duration`: faults that would start after it go, the rest end
// with it.
Perturbation cut_to(Perturbation p, sim::Duration duration) {
  p.duration = duration;
  std::vector<Fault> kept;
  for (auto f : p.faults) {
    if (f.at >= duration) continue;
    f.length = std::min(f.length, duration - f.at);
    kept.push_back(f);
  }
  p.faults = kept;
  return p;
}

}  // namespace

Perturbation shrink(const Perturbation& failing,
                    const std::function<bool(const Perturbation&)>& still_fails, int max_runs) {
  Perturbation best = failing;
  int runs = 0;
  auto attempt = [&](const Perturbation& c) {
    if (runs >= max_runs) return false;
    ++runs;
    if (!still_fails(c)) return false;
    best = c;
    return true;
  };
  // 1. Drop faults one by one, last first (later faults rarely cause earlier failures).
  for (std::size_t i = best.faults.size(); i-- > 0;) {
    Perturbation c = best;
    c.faults.erase(c.faults.begin() + static_cast<std::ptrdiff_t>(i));
    attempt(c);
  }
  // 2. Shorten the run: just past the last fault's start, then halves.
  sim::Duration need = sim::kSecond;
  for (const auto& f : best.faults) need = std::max(need, f.at + f.length + sim::kSecond);
  if (need < best.duration) attempt(cut_to(best, need));
  while (best.duration / 2 >= sim::kSecond && attempt(cut_to(best, best.duration / 2))) {
  }
  // 3. Shorten each fault.
  for (std::size_t i = 0; i < best.faults.size(); ++i) {
    for (;;) {
      Perturbation c = best;
      c.faults[i].length /= 2;
      if (c.faults[i].length < sim::kMillisecond || !attempt(c)) break;
    }
  }
  // 4. Lower every rate.
  while (best.rate_factor > 1.0 / 64 && runs < max_runs) {
    Perturbation c = best;
    c.rate_factor /= 2;
    if (!attempt(c)) break;
  }
  return best;
}

}  // namespace skysim::fuzz
