#include "validation/kernel_checks.hpp"

#include <cstdio>
#include <vector>

#include "scenarios/runner.hpp"
#include "sim/process.hpp"
#include "sim/simulation.hpp"
#include "validation/confidence.hpp"
#include "validation/queue_server_run.hpp"

namespace skysim::validation {
namespace {

sim::Process wake_at(std::vector<int>& order, sim::Time t, int id) {
  co_await sim::sleep_until(t);
  order.push_back(id);
}

std::string p_text(double p) { return "p = " + format_number(p, 3); }

}  // namespace

DirectCheck check_equal_time_order() {
  constexpr int kEach = 2000;
  const sim::Time due = 5 * sim::kSecond;
  sim::Simulation sim(1);
  std::vector<int> order;
  const sim::Kind kind = sim.intern_kind("validation.tick");
  // Interleave processes and callbacks so both paths into the queue compete for one instant.
  for (int i = 0; i < kEach; ++i) {
    sim.spawn(wake_at(order, due, 2 * i), "validation.sleeper");
    sim.call_at(due, kind, [&order, i] { order.push_back(2 * i + 1); });
  }
  sim.run();
  sim.shutdown();
  // Processes start (one event each at time 0) before they park, so their wake-ups are
  // scheduled after every callback: expected order is all callbacks, then all processes.
  std::vector<int> expected;
  for (int i = 0; i < kEach; ++i) expected.push_back(2 * i + 1);
  for (int i = 0; i < kEach; ++i) expected.push_back(2 * i);
  long misplaced = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (i >= order.size() || order[i] != expected[i]) ++misplaced;
  }
  DirectCheck c;
  c.claim = "4000 events due at one instant run in insertion (FIFO) order";
  c.source = "docs/kernel.md (event order = (time, sequence))";
  c.expected = "0 out of order";
  c.simulated = std::to_string(misplaced) + " out of order";
  c.pass = misplaced == 0 && order.size() == expected.size();
  return c;
}

DirectCheck check_uniform_int(std::uint64_t seed, long draws, double alpha) {
  sim::Simulation sim(seed);
  sim::Rng& rng = sim.stream("validation/rng/uniform_int");
  std::vector<long> cells(10, 0);
  for (long i = 0; i < draws; ++i) ++cells[static_cast<std::size_t>(rng.uniform_int(0, 9))];
  double p = chi_square_uniform_p(cells);
  DirectCheck c;
  c.claim = "Rng::uniform_int(0,9) is uniform: chi-square, " + std::to_string(draws) + " draws";
  c.source = "sim/rng.hpp (Boost.Random)";
  c.expected = "p > " + format_number(alpha, 2);
  c.simulated = p_text(p);
  c.pass = p > alpha;
  c.statistical = true;
  return c;
}

DirectCheck check_exponential(std::uint64_t seed, long draws, double alpha) {
  sim::Simulation sim(seed);
  sim::Rng& rng = sim.stream("validation/rng/exponential");
  const double mean = 10e6;  // 10 ms in ns, the service mean of the queueing cases
  std::vector<double> x;
  x.reserve(static_cast<std::size_t>(draws));
  for (long i = 0; i < draws; ++i) x.push_back(rng.exponential(mean));
  KsResult ks = ks_exponential(std::move(x), mean);
  DirectCheck c;
  c.claim = "Rng::exponential is Exp(mean): Kolmogorov-Smirnov, " + std::to_string(draws) +
            " draws";
  c.source = "sim/rng.hpp (Boost.Random)";
  c.expected = "p > " + format_number(alpha, 2);
  c.simulated = "D = " + format_number(ks.d, 3) + ", " + p_text(ks.p);
  c.pass = ks.p > alpha;
  c.statistical = true;
  return c;
}

DirectCheck check_determinism(const std::string& scenario_file) {
  auto a = run_queue_server_scenario(scenario_file, 7, "30s");
  auto b = run_queue_server_scenario(scenario_file, 7, "30s");
  auto other = run_queue_server_scenario(scenario_file, 8, "30s");
  DirectCheck c;
  c.claim = "same seed => same fingerprint; another seed => another";
  c.source = "DESIGN.md (determinism)";
  c.expected = "equal, different";
  c.simulated = scenarios::format_fingerprint(a.fingerprint) + " " +
                (a.fingerprint == b.fingerprint ? "==" : "!=") + " " +
                scenarios::format_fingerprint(b.fingerprint) + ", seed 8 " +
                (other.fingerprint != a.fingerprint ? "differs" : "SAME");
  c.pass = a.fingerprint == b.fingerprint && other.fingerprint != a.fingerprint;
  return c;
}

}  // namespace skysim::validation
