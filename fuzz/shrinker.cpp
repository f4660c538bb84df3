#include "fuzz/shrinker.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

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

// A weaker strength for the kinds where a smaller number is a milder fault, or nullopt: burst
// factor halfway to 1, batch rate, delay and commit_unknown probability halved, one Scylla node
// fewer. (OOM limits and parameter flips are milder the other way, towards the base value,
// which the fault does not record: left as drawn.)
std::optional<double> weaker(const Fault& f) {
  switch (f.kind) {
    case FaultKind::Burst:
      if (f.strength <= 1.05) return std::nullopt;
      return 1 + (f.strength - 1) / 2;
    case FaultKind::HugeBatch:
      if (f.strength <= 1) return std::nullopt;
      return std::max(1.0, std::round(f.strength / 2));
    case FaultKind::DelaySpike:
      if (f.strength <= 1) return std::nullopt;
      return std::max(1.0, std::round(f.strength / 2));
    case FaultKind::CommitUnknown:
      if (f.strength <= 0.001) return std::nullopt;
      return std::max(0.001, std::round(f.strength / 2 * 1000) / 1000);
    case FaultKind::ScyllaDown:
      if (f.strength <= 1) return std::nullopt;
      return f.strength - 1;
    case FaultKind::PacketLoss:
    case FaultKind::SynDrop:
      if (f.strength <= 0.001) return std::nullopt;
      return std::max(0.001, std::round(f.strength / 2 * 1000) / 1000);
    case FaultKind::MemcachedSlow:
      if (f.strength <= 1) return std::nullopt;
      return std::max(1.0, std::round(f.strength / 2));
    case FaultKind::ScyllaSlow:
      if (f.strength <= 1.05) return std::nullopt;
      return std::round((1 + (f.strength - 1) / 2) * 10) / 10;
    default:
      return std::nullopt;
  }
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
  for (bool progress = true; progress && runs < max_runs;) {
    progress = false;
    // 1. Delta debugging over the fault set (Zeller's ddmin, complement side): drop chunks of
    //    half the faults, then quarters, ... then single faults, last first.
    for (std::size_t chunk = std::max<std::size_t>(1, best.faults.size() / 2); chunk >= 1;
         chunk /= 2) {
      for (std::size_t end = best.faults.size(); end > 0 && runs < max_runs;) {
        std::size_t begin = end >= chunk ? end - chunk : 0;
        Perturbation c = best;
        c.faults.erase(c.faults.begin() + static_cast<std::ptrdiff_t>(begin),
                       c.faults.begin() + static_cast<std::ptrdiff_t>(end));
        if (attempt(c)) progress = true;
        end = std::min(begin, best.faults.size());
      }
      if (chunk == 1) break;
    }
    // 2. Shorten the run: just past the last fault's end, then halves.
    sim::Duration need = sim::kSecond;
    for (const auto& f : best.faults) need = std::max(need, f.at + f.length + sim::kSecond);
    if (need < best.duration && attempt(cut_to(best, need))) progress = true;
    while (best.duration / 2 >= sim::kSecond && attempt(cut_to(best, best.duration / 2))) {
      progress = true;
    }
    // 3. Each fault: shorter, later (the same end, half the exposure), weaker.
    for (std::size_t i = 0; i < best.faults.size(); ++i) {
      for (;;) {
        Perturbation c = best;
        c.faults[i].length /= 2;
        if (c.faults[i].length < sim::kMillisecond || !attempt(c)) break;
        progress = true;
      }
      for (;;) {
        Perturbation c = best;
        sim::Duration half = c.faults[i].length / 2;
        if (half < sim::kMillisecond) break;
        c.faults[i].at += half;
        c.faults[i].length -= half;
        if (!attempt(c)) break;
        progress = true;
      }
      for (;;) {
        auto s = weaker(best.faults[i]);
        if (!s) break;
        Perturbation c = best;
        c.faults[i].strength = *s;
        if (!attempt(c)) break;
        progress = true;
      }
    }
    // 4. Lower the load: every source rate (down to 1/64).
    while (best.rate_factor > 1.0 / 64 && runs < max_runs) {
      Perturbation c = best;
      c.rate_factor /= 2;
      if (!attempt(c)) break;
      progress = true;
    }
  }
  return best;
}

}  // namespace skysim::fuzz
