// A Go process with GOMAXPROCS = 4 whose goroutines each make one write(2) that blocks for
// d = 10 ms, started at lambda = 20,000/s (the model's own figures, docs/models/goruntime.md).
// Each blocked write holds its M for d, so by Little's law the mean number of Ms inside write(2)
// is lambda d = 200 whatever the scheduler does — an exact value to replicate over seeds. The
// thread count is bounded on both sides by the same mechanism: at least the blocked Ms plus
// sysmon, at most those plus one M per P running Go code, which is where "GOMAXPROCS +
// lambda d" comes from; at a steady pace it must stop inside those bounds and stay there.
// (Under Poisson starts the high-water mark is a maximum of a Poisson(lambda d) count instead,
// ~3 sigma above: docs/validation.md.)
#include "validation/goruntime_checks.hpp"

#include <functional>
#include <stdexcept>
#include <string>

#include "models/goruntime/go_process.hpp"
#include "sim/process.hpp"
#include "sim/simulation.hpp"
#include "validation/parallel.hpp"

namespace skysim::validation {
namespace {

constexpr int kProcs = 4;
constexpr double kWritesPerS = 20'000;
constexpr sim::Duration kBlock = 10 * sim::kMillisecond;
constexpr double kBlockedMean = kWritesPerS * 10e-3;    // lambda d
const sim::Duration kWarmup = 500 * sim::kMillisecond;  // ~50 write durations
const sim::Duration kSampleEvery = 100 * sim::kMicrosecond;

// A file descriptor whose every write(2) blocks for a fixed time.
struct BlockingFd : goruntime::WriteTarget {
  sim::Time complete_write(sim::Time now, std::int64_t) override { return now + kBlock; }
};

sim::Task<> write_once(goruntime::GoProcess& go, goruntime::WriteTarget& fd) {
  co_await go.syscall_write(fd, 200);
}

// One goroutine per write: Poisson starts, or evenly spaced ones (a steady pace).
sim::Process writers(goruntime::GoProcess& go, goruntime::WriteTarget& fd, sim::Time until,
                     bool poisson) {
  sim::Rng& rng = go.simulation().stream("validation/goruntime/writers");
  const auto gap = static_cast<sim::Duration>(1e9 / kWritesPerS);
  while (go.simulation().now() < until && go.alive()) {
    co_await sim::sleep(poisson ? rng.exponential_duration(gap) : gap);
    go.go(write_once(go, fd));
  }
}

struct Averages {
  double blocked = 0;  // Ms inside write(2)
  long samples = 0;
};

// A fixed grid, independent of the process's events: an unbiased time average.
sim::Process sample(goruntime::GoProcess& go, sim::Time from, Averages& a) {
  co_await sim::sleep_until(from);
  while (true) {
    a.blocked += static_cast<double>(go.ms_in_syscall());
    ++a.samples;
    co_await sim::sleep(kSampleEvery);
  }
}

goruntime::GoConfig config() {
  goruntime::GoConfig cfg;
  cfg.name = "validation-go";
  cfg.cores = kProcs;
  return cfg;
}

Averages poisson_run(sim::Duration length, std::uint64_t seed) {
  sim::Simulation sim(seed);
  goruntime::GoProcess go(sim, config());
  BlockingFd fd;
  Averages a;
  const sim::Time end = kWarmup + length;
  sim.spawn(writers(go, fd, end, true), "validation.writers");
  sim.spawn(sample(go, kWarmup, a), "validation.sampler");
  sim.run_until(end);
  if (!go.invariants_hold()) throw std::runtime_error("goruntime check: invariants broken");
  sim.shutdown();
  a.blocked /= static_cast<double>(a.samples);
  return a;
}

struct SteadyPace {
  std::int64_t loaded = 0;  // threads when the load stops
  std::int64_t later = 0;   // 5 s after
};

SteadyPace steady_run() {
  sim::Simulation sim(1);
  goruntime::GoProcess go(sim, config());
  BlockingFd fd;
  const sim::Time end = 2 * sim::kSecond;
  sim.spawn(writers(go, fd, end, false), "validation.writers");
  sim.run_until(end);
  SteadyPace s{go.threads(), 0};
  sim.run_until(end + 5 * sim::kSecond);
  s.later = go.threads();
  sim.shutdown();
  return s;
}

}  // namespace

GoruntimeChecks goruntime_checks(const SelftestOptions& options) {
  const sim::Duration length = (options.quick ? 1 : 4) * sim::kSecond;
  const auto seeds = static_cast<std::size_t>(options.seeds);
  std::vector<Averages> full(seeds), short_runs(seeds);
  std::vector<std::function<void()>> tasks;
  for (std::size_t i = 0; i < seeds; ++i) {
    tasks.push_back([&full, i, length] { full[i] = poisson_run(length, i + 1); });
    tasks.push_back(
        [&short_runs, i, length] { short_runs[i] = poisson_run(length / 4, 1000 + i + 1); });
  }
  SteadyPace steady;
  tasks.push_back([&steady] { steady = steady_run(); });
  run_tasks(tasks, options.jobs);

  const std::string source = "domain.md §3.2, docs/models/goruntime.md";
  const std::string setup = "GOMAXPROCS 4, Poisson 20,000 writes/s blocking 10 ms";
  GoruntimeChecks out;
  ReplicatedCheck blocked;
  blocked.claim = "Go thread growth: Ms blocked in write(2) = lambda d on average (" + setup + ")";
  blocked.source = source + " (Little's law)";
  blocked.expected = kBlockedMean;
  for (const auto& a : full) blocked.per_seed.push_back(a.blocked);
  for (const auto& a : short_runs) blocked.per_seed_short.push_back(a.blocked);
  blocked.resolution = 0.02 * kBlockedMean;
  out.replicated.push_back(blocked);

  DirectCheck pace;
  pace.claim =
      "Go thread growth: at a steady 20,000 writes/s x 10 ms threads settle at "
      "GOMAXPROCS + lambda d and stay";
  pace.source = source + ", golang/go#14592";
  pace.expected = "4 + 200 = 204 (bounds lambda d + 1 .. + GOMAXPROCS: 201..205), then unchanged";
  pace.simulated = std::to_string(steady.loaded) + " threads, " + std::to_string(steady.later) +
                   " 5 s after the load stopped";
  const auto low = static_cast<std::int64_t>(kBlockedMean) + 1;  // + sysmon
  const std::int64_t high = low + kProcs;
  pace.pass = steady.loaded >= low && steady.loaded <= high && steady.later == steady.loaded;
  out.direct.push_back(pace);
  return out;
}

}  // namespace skysim::validation
