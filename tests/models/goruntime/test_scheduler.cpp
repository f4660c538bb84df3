#include <catch2/catch.hpp>
#include <algorithm>
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
  // sysmon hands each P off at most once per two ticks (~70 us each with timer slack), so 4 Ps
  // start at most 4 / 140 us ~ 28,600 syscalls/s: faster writers queue for a P instead.
  const double handoffs_per_s = 4 / (2 * 70e-6);
  for (auto [lambda, d] : {std::pair{20'000.0, 10 * kMillisecond},
                           {50'000.0, 20 * kMillisecond},
                           {2'000.0, 50 * kMillisecond}}) {
    ThreadRun r = run_blocking_writes(lambda, d, false);
    double expected = 4 + std::min(lambda, handoffs_per_s) * to_seconds(d);
    INFO("lambda " << lambda << " d " << d << " threads " << r.threads_loaded);
    WARN("threads with lambda=" << lambda << "/s d=" << to_seconds(d) << "s: " << r.threads_loaded
                                << " (GOMAXPROCS + min(lambda, handoff rate)*d = " << expected
                                << ")");
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
  cfg = GoConfig{};
  cfg.sysmon_timer_slack = -1;
  CHECK_THROWS_WITH(GoProcess(sim, cfg), "goruntime config: sysmon_timer_slack must be >= 0");
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

namespace {
using gotest::one_syscall;

struct WakeRun {
  std::int64_t threads = 0;
  std::uint64_t handoffs = 0;
  std::uint64_t wakes = 0;
  Time done_after = 0;  // from the burst to its last syscall's return
};

// A process idle for a second (sysmon long backed off to 10 ms), then a burst of 2-ms syscalls,
// more than there are Ps: what Ps, threads and time does the burst take?
WakeRun idle_then_syscall_burst(bool parks, int goroutines = 20) {
  Simulation sim(5);
  GoConfig cfg;
  cfg.cores = 2;
  cfg.sysmon_parks_when_idle = parks;
  GoProcess go(sim, cfg);
  sim.run_until(kSecond);
  Time last_return = 0;
  for (int i = 0; i < goroutines; ++i) {
    go.go(one_syscall(go, 2 * kMillisecond, last_return));
  }
  sim.run_until(2 * kSecond);
  WakeRun r;
  CHECK(go.goroutines() == 0);
  r.done_after = last_return - kSecond;
  r.threads = go.threads();
  r.handoffs = go.handoffs();
  r.wakes = go.sysmon_wakes();
  sim.shutdown();
  return r;
}
}  // namespace

TEST_CASE("sysmon parks while every P is idle, and the next syscall wakes it at 20 us") {
  // Go's sysmon: a tick finding npidle == gomaxprocs sleeps on sysmonnote; entersyscall wakes
  // it with idle = 0, so the burst's 2-ms syscalls are retaken after two ~70-us ticks and each
  // hands its P to a new M: all 20 are in the kernel within ~1.4 ms.
  WakeRun woken = idle_then_syscall_burst(true);
  CHECK(woken.wakes >= 1);  // more when every P idles again while Ms are still in syscalls
  CHECK(woken.handoffs >= 18);
  CHECK(woken.threads >= 20);
  CHECK(woken.done_after < 4 * kMillisecond);
  // A sysmon that never parks stays at its 10-ms sleep and never sees the same 2-ms syscall
  // twice: the 2 Ps take the 20 syscalls in turn.
  WakeRun backed_off = idle_then_syscall_burst(false);
  CHECK(backed_off.wakes == 0);
  CHECK(backed_off.handoffs == 0);
  CHECK(backed_off.threads <= 4);
  CHECK(backed_off.done_after == 20 * kMillisecond);
}

TEST_CASE("with sysmon awake, back-to-back syscalls hold P x d / (2 ticks) threads") {
  // Each P's syscall is retaken on the second tick that sees it (the first only records its
  // syscalltick), and the next goroutine enters the next syscall at once: every P starts a
  // syscall every 2 ticks, each holds its M for d, so P x d / (2 ticks) Ms are in syscalls.
  // A tick is sysmon's 20 us sleep plus Linux's 50 us timer slack.
  const double tick = 70e-6;
  WakeRun r = idle_then_syscall_burst(true, 2000);
  const double in_syscalls = 2 * (2e-3 / (2 * tick));  // ~28.6
  INFO("threads " << r.threads);
  CHECK(static_cast<double>(r.threads) == Approx(in_syscalls + 2 + 1).epsilon(0.08));
  // 2,000 syscalls of 2 ms through ~29 Ms: ~140 ms, not the 2 s two Ps would take.
  CHECK(static_cast<double>(r.done_after) == Approx(2000 * 2e6 / in_syscalls).epsilon(0.08));
}
