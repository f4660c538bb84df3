#include <catch2/catch.hpp>
#include <cmath>

#include "models/goruntime/go_process.hpp"
#include "workloads.hpp"

using namespace sim;
using goruntime::GoConfig;
using goruntime::GoProcess;

namespace {

// Erlang C mean wait in queue for M/M/c.
double erlang_c_wait(double lambda, double mean_s, int c) {
  double a = lambda * mean_s;
  double rho = a / c;
  double sum = 0;
  double term = 1;
  for (int k = 0; k < c; ++k) {
    if (k > 0) {
      term *= a / k;
    }
    sum += term;
  }
  double last = term * a / c / (1 - rho);  // a^c/c! / (1-rho)
  double p_wait = last / (sum + last);
  return p_wait * mean_s / (c * (1 - rho));
}

double mean_response(double load) {
  Simulation sim(7);
  GoConfig cfg;
  cfg.cores = 4;
  GoProcess go(sim, cfg);
  Histogram latency;
  const Duration service = kMillisecond;
  double lambda = load * 4 / 1e-3;
  bool ok = true;
  sim.spawn(gotest::mmc_arrivals(go, lambda, service, 40 * kSecond, latency));
  sim.spawn(gotest::watch_invariants(go, 7 * kMillisecond, ok));
  sim.run_until(41 * kSecond);
  CHECK(ok);
  double mean = latency.mean() / 1e9;
  sim.shutdown();
  return mean;
}

}  // namespace

TEST_CASE("CPU contention: goroutines queue for GOMAXPROCS Ps like M/M/c") {
  for (double load : {0.5, 0.8, 0.9}) {
    double expected = 1e-3 + erlang_c_wait(load * 4 / 1e-3, 1e-3, 4);
    double measured = mean_response(load);
    INFO("load " << load << " expected " << expected << " measured " << measured);
    CHECK(measured == Approx(expected).epsilon(0.08));
  }
  // And latency rises steeply with load.
  CHECK(mean_response(0.9) > 2.5 * mean_response(0.5));
}

TEST_CASE("goroutines are counted with their 2 KiB stacks and finish cleanly") {
  Simulation sim(1);
  GoConfig cfg;
  cfg.cores = 2;
  GoProcess go(sim, cfg);
  Histogram lat;
  for (int i = 0; i < 1000; ++i) {
    go.go(gotest::cpu_job(go, kMillisecond, lat));
  }
  sim.run_until(kMicrosecond);
  CHECK(go.goroutines() == 1000);
  CHECK(go.stack_bytes() == 1000 * 2048);
  CHECK(go.ps_running() == 2);
  CHECK(go.run_queue() == 998);
  sim.run();
  CHECK(go.goroutines() == 0);
  CHECK(lat.count() == 1000);
  CHECK(sim.now() == 500 * kMillisecond);  // 1000 × 1 ms on 2 Ps
  CHECK(go.cpu_busy_ns() == 1000 * kMillisecond);
  sim.shutdown();
}

namespace {
struct ThreadRun {
  std::int64_t threads_loaded = 0;
  std::int64_t threads_after = 0;
  std::int64_t idle_after = 0;
  std::int64_t in_syscall_after = 0;
};

ThreadRun run_blocking_writes(double lambda, Duration block, bool poisson) {
  Simulation sim(3);
  GoConfig cfg;
  cfg.cores = 4;
  GoProcess go(sim, cfg);
  gotest::FixedBlockTarget sink(block);
  bool ok = true;
  sim.spawn(gotest::log_writers(go, sink, lambda, 1500 * kMillisecond, poisson));
  sim.spawn(gotest::watch_invariants(go, 333 * kMicrosecond, ok));
  sim.run_until(1500 * kMillisecond);
  ThreadRun r;
  r.threads_loaded = go.threads();
  sim.run_until(10 * kSecond);  // the load has stopped
  r.threads_after = go.threads();
  r.idle_after = go.ms_idle();
  r.in_syscall_after = go.ms_in_syscall();
  CHECK(ok);
  sim.shutdown();
  return r;
}
}  // namespace

TEST_CASE("blocking writes grow threads to GOMAXPROCS + lambda*d, and they never shrink") {
  for (auto [lambda, d] : {std::pair{20'000.0, 10 * kMillisecond},
                           {50'000.0, 20 * kMillisecond},
                           {2'000.0, 50 * kMillisecond}}) {
    ThreadRun r = run_blocking_writes(lambda, d, false);
    double expected = 4 + lambda * to_seconds(d);
    INFO("lambda " << lambda << " d " << d << " threads " << r.threads_loaded);
    WARN("threads with lambda=" << lambda << "/s d=" << to_seconds(d) << "s: " << r.threads_loaded
                                << " (GOMAXPROCS + lambda*d = " << expected << ")");
    CHECK(static_cast<double>(r.threads_loaded) == Approx(expected).epsilon(0.10));
    CHECK(r.threads_after == r.threads_loaded);  // idle Ms are kept (golang/go#14592)
    CHECK(r.in_syscall_after == 0);
    CHECK(r.idle_after == r.threads_after - 1);  // all but sysmon parked
  }
}

TEST_CASE("short syscalls do not grow threads: sysmon never sees them") {
  ThreadRun r = run_blocking_writes(20'000, 5 * kMicrosecond, false);
  CHECK(r.threads_loaded <= 4 + 2);
}

TEST_CASE("with Poisson writers the thread high-water mark sits above the mean") {
  ThreadRun r = run_blocking_writes(20'000, 10 * kMillisecond, true);
  double mean = 4 + 200;
  CHECK(static_cast<double>(r.threads_loaded) > mean);
  CHECK(static_cast<double>(r.threads_loaded) < mean + 6 * std::sqrt(200.0));
}

TEST_CASE("exceeding max_threads is fatal: thread exhaustion crashes, then the process restarts") {
  Simulation sim(3);
  GoConfig cfg;
  cfg.cores = 4;
  cfg.max_threads = 100;
  cfg.restart_delay = 5 * kSecond;
  GoProcess go(sim, cfg);
  gotest::FixedBlockTarget sink(10 * kMillisecond);
  std::string seen;
  Time crashed_at = -1;
  Time restarted_at = -1;
  go.on_crash([&](goruntime::CrashReason r, const std::string& msg) {
    seen = msg;
    crashed_at = sim.now();
    CHECK(r == goruntime::CrashReason::kThreadExhaustion);
  });
  go.on_restart([&] { restarted_at = sim.now(); });
  sim.spawn(gotest::log_writers(go, sink, 20'000, kSecond, false));
  sim.run_until(kSecond);
  CHECK(go.crashes() == 1);
  CHECK_FALSE(go.alive());
  CHECK(go.threads() == 0);
  sim.run_until(crashed_at + 6 * kSecond);
  CHECK(seen.find("fatal error: thread exhaustion") != std::string::npos);
  CHECK(crashed_at > 0);
  CHECK(restarted_at == crashed_at + 5 * kSecond);
  CHECK(go.alive());
  CHECK(go.goroutines() == 0);  // every goroutine died with the process
  CHECK(go.threads() == cfg.initial_threads);
  CHECK(go.invariants_hold());
  sim.shutdown();
}

TEST_CASE("bad configuration is refused with the field name") {
  Simulation sim(1);
  GoConfig cfg;
  cfg.cores = 0;
  CHECK_THROWS_WITH(GoProcess(sim, cfg), "goruntime config: cores must be >= 1");
  cfg = GoConfig{};
  cfg.trigger_max_fraction = 1.5;
  CHECK_THROWS_WITH(GoProcess(sim, cfg),
                    "goruntime config: trigger_max_fraction must be in "
                    "[trigger_min_fraction, 1]");
}

TEST_CASE("same seed, same run: the fingerprint repeats") {
  auto run = [] {
    Simulation sim(11);
    GoConfig cfg;
    cfg.cores = 4;
    GoProcess go(sim, cfg);
    Histogram lat;
    sim.spawn(gotest::mmc_arrivals(go, 3000, kMillisecond, kSecond, lat));
    sim.run_until(2 * kSecond);
    auto fp = sim.fingerprint();
    sim.shutdown();
    return fp;
  };
  CHECK(run() == run());
}
