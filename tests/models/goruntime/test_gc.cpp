#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "models/goruntime/go_process.hpp"
#include "workloads.hpp"

using namespace sim;
using goruntime::GoConfig;
using goruntime::GoProcess;
using goruntime::kMiB;

namespace {

constexpr std::int64_t kLive = 256 * kMiB;

GoConfig gc_host() {
  GoConfig cfg;
  cfg.cores = 4;
  return cfg;
}

// Non-heap memory of the steady workload (runtime base, stacks, threads), measured.
std::int64_t steady_nonheap(GoProcess& go) { return go.rss_bytes() - go.heap_alloc_bytes(); }

// 8 goroutines of 1 ms CPU each followed by `garbage` bytes: 4 Ps give 4000 allocations/s
// (50 KiB: ~200 MB/s of garbage; 10 KiB: ~40 MB/s).
void start_workload(GoProcess& go, std::int64_t garbage = 50 * 1024) {
  go.go(gotest::hold_live(go, kLive));
  for (int i = 0; i < 8; ++i) {
    go.go(gotest::churn(go, kMillisecond, garbage));
  }
}

struct GcPoint {
  double ratio;  // GOMEMLIMIT / (live heap + non-heap), 0 = no limit
  double gc_cpu_fraction;
  double cycles_per_s;
  double heap_peak_over_live;
  double mutator_cpu_fraction;
};

GcPoint run_point(double ratio, Duration window, int gogc = 100, std::int64_t garbage = 50 * 1024) {
  Simulation sim(5);
  GoConfig cfg = gc_host();
  cfg.gogc = gogc;
  std::int64_t nonheap = 0;
  {
    // A probe run gives the non-heap footprint of this workload for the limit's ratio.
    Simulation probe_sim(5);
    GoProcess probe(probe_sim, cfg);
    start_workload(probe);
    probe_sim.run_until(kSecond);
    nonheap = steady_nonheap(probe);
    probe_sim.shutdown();
  }
  if (ratio > 0) {
    cfg.gomemlimit_bytes = static_cast<std::int64_t>(ratio * static_cast<double>(kLive + nonheap));
  }
  GoProcess go(sim, cfg);
  start_workload(go, garbage);
  bool ok = true;
  sim.spawn(gotest::watch_invariants(go, 3 * kMillisecond, ok));
  Duration warmup = 3 * kSecond;
  sim.run_until(warmup);
  Duration gc0 = go.gc_cpu_ns();
  Duration busy0 = go.cpu_busy_ns();
  auto cycles0 = go.gc_cycles();
  sim.run_until(warmup + window);
  GcPoint p;
  p.ratio = ratio;
  double cpu = 4.0 * static_cast<double>(window);
  p.gc_cpu_fraction = static_cast<double>(go.gc_cpu_ns() - gc0) / cpu;
  p.cycles_per_s = static_cast<double>(go.gc_cycles() - cycles0) / to_seconds(window);
  p.heap_peak_over_live = static_cast<double>(go.heap_peak_bytes()) / kLive;
  p.mutator_cpu_fraction = static_cast<double>(go.cpu_busy_ns() - busy0) / cpu;
  CHECK(ok);
  sim.shutdown();
  return p;
}

}  // namespace

TEST_CASE("GOGC=100 without a limit: the heap peaks near twice the live heap") {
  // Slow allocation: little floating garbage (objects allocated during mark survive a cycle).
  GcPoint slow = run_point(0, 20 * kSecond, 100, 10 * 1024);
  WARN("GOGC=100, 40 MB/s garbage: heap peak / live = " << slow.heap_peak_over_live);
  CHECK(slow.heap_peak_over_live == Approx(2.0).epsilon(0.05));
  // Fast allocation: the mark phase lasts longer relative to the cycle, the peak rises above 2x
  // by the floating garbage, as in Go (heapMarked counts allocate-black objects).
  GcPoint fast = run_point(0, 20 * kSecond);
  WARN("GOGC=100, 200 MB/s garbage: heap peak / live = " << fast.heap_peak_over_live << ", GC CPU "
                                                         << fast.gc_cpu_fraction << ", cycles/s "
                                                         << fast.cycles_per_s);
  CHECK(fast.heap_peak_over_live > slow.heap_peak_over_live);
  CHECK(fast.heap_peak_over_live < 2.5);
  CHECK(fast.cycles_per_s > 0.3);
  CHECK(fast.gc_cpu_fraction < 0.15);
}

TEST_CASE("GOGC doubles: heap overhead doubles, GC CPU roughly halves") {
  GcPoint p200 = run_point(0, 30 * kSecond, 200, 10 * 1024);
  WARN("GOGC=200 heap peak / live = " << p200.heap_peak_over_live);
  CHECK(p200.heap_peak_over_live == Approx(3.0).epsilon(0.05));
  GcPoint f100 = run_point(0, 30 * kSecond, 100);
  GcPoint f200 = run_point(0, 30 * kSecond, 200);
  CHECK(f200.cycles_per_s == Approx(f100.cycles_per_s / 2).epsilon(0.2));
  CHECK(f200.gc_cpu_fraction == Approx(f100.gc_cpu_fraction / 2).epsilon(0.2));
}

TEST_CASE("GOMEMLIMIT near the live heap: GC CPU rises steeply, the limiter caps it near 50%") {
  GcPoint off = run_point(0, 4 * kSecond);
  GcPoint loose = run_point(1.5, 4 * kSecond);
  GcPoint tight = run_point(1.1, 4 * kSecond);
  GcPoint tighter = run_point(1.02, 4 * kSecond);
  WARN("GC CPU: off " << off.gc_cpu_fraction << ", 1.5x " << loose.gc_cpu_fraction << ", 1.1x "
                      << tight.gc_cpu_fraction << ", 1.02x " << tighter.gc_cpu_fraction);
  CHECK(loose.gc_cpu_fraction >= off.gc_cpu_fraction * 0.95);
  CHECK(tight.gc_cpu_fraction > 3 * off.gc_cpu_fraction);
  CHECK(tighter.gc_cpu_fraction > tight.gc_cpu_fraction);
  // The limiter: GC never takes much more than half the CPU, even when it never catches up.
  CHECK(tighter.gc_cpu_fraction < 0.56);
  CHECK(tighter.gc_cpu_fraction > 0.40);
  // ... and the mutator keeps (roughly) the other half.
  CHECK(tighter.mutator_cpu_fraction > 0.40);
}

TEST_CASE("GC curve data for docs (run explicitly: SKYSIM_GC_CURVE_CSV=path)", "[.gc-curve]") {
  const char* path = std::getenv("SKYSIM_GC_CURVE_CSV");
  REQUIRE(path != nullptr);
  std::ofstream out(path);
  out << "# GC CPU fraction vs GOMEMLIMIT/(live heap + non-heap); GOGC=100, 4 Ps, 256 MiB live,"
         " ~200 MB/s garbage; ratio 0 = no limit\n";
  out << "ratio,gc_cpu_fraction,cycles_per_s,mutator_cpu_fraction,heap_peak_over_live\n";
  for (double r :
       {1.01, 1.02, 1.03, 1.05, 1.075, 1.1, 1.15, 1.2, 1.3, 1.4, 1.5, 1.75, 2.0, 2.5, 3.0, 0.0}) {
    GcPoint p = run_point(r, 6 * kSecond);
    out << p.ratio << "," << p.gc_cpu_fraction << "," << p.cycles_per_s << ","
        << p.mutator_cpu_fraction << "," << p.heap_peak_over_live << "\n";
  }
}

TEST_CASE("retain sets a baseline live set; release turns it into garbage the next GC sweeps") {
  Simulation sim(1);
  GoProcess go(sim, gc_host());
  go.retain(100 * kMiB);
  CHECK(go.heap_live_bytes() == 100 * kMiB);
  CHECK(go.heap_alloc_bytes() == 100 * kMiB);
  CHECK(go.rss_bytes() > 100 * kMiB);
  sim.run_until(kSecond);  // the first cycle (goal 4 MiB) runs and marks 100 MiB
  CHECK(go.gc_cycles() == 1);
  CHECK(go.heap_goal_bytes() > 200 * kMiB);
  go.release(60 * kMiB);
  CHECK(go.heap_alloc_bytes() == 100 * kMiB);  // garbage until swept
  go.go(gotest::churn(go, kMillisecond, 1024 * 1024));
  sim.run_until(20 * kSecond);
  CHECK(go.gc_cycles() > 1);
  CHECK(go.heap_live_bytes() == 40 * kMiB);
  CHECK(go.heap_goal_bytes() < 120 * kMiB);  // the goal followed the smaller live set
  sim.shutdown();
}

// Stop-the-world latency (vs runnable threads per core, and Ps in syscalls taken at once):
// test_gc_starved.cpp.

TEST_CASE("OOM kill when RSS crosses the container limit; restart gives a fresh process") {
  Simulation sim(2);
  GoConfig cfg = gc_host();
  cfg.container_memory_limit_bytes = 512 * kMiB;
  cfg.restart_delay = 10 * kSecond;
  GoProcess go(sim, cfg);
  int crashes = 0;
  int restarts = 0;
  Time crash_at = -1;
  std::int64_t rss_at_kill = 0;
  go.on_crash([&](goruntime::CrashReason r, const std::string& msg) {
    ++crashes;
    crash_at = sim.now();
    auto at = msg.find("rss=");
    REQUIRE(at != std::string::npos);
    rss_at_kill = std::stoll(msg.substr(at + 4));
    CHECK(r == goruntime::CrashReason::kOomKill);
    CHECK(msg.find("OOMKilled") != std::string::npos);
  });
  go.on_restart([&] { ++restarts; });
  go.go(gotest::leak(go, kMiB, 10 * kMillisecond));  // 100 MiB/s of reachable memory
  sim.run_until(20 * kSecond);
  CHECK(crashes == 1);
  // Killed on the allocation that crossed the limit...
  CHECK(rss_at_kill > 512 * kMiB);
  CHECK(rss_at_kill <= 512 * kMiB + kMiB);
  // ... after 512 MiB minus ~16 MiB of runtime at 100 MiB/s, plus the time the leaking
  // goroutine spent in GC assists.
  CHECK(to_seconds(crash_at) > 4.9);
  CHECK(to_seconds(crash_at) < 6.0);
  CHECK(go.peak_rss_bytes() <= 512 * kMiB);  // the new process has not reached it again
  CHECK(restarts == 1);
  CHECK(go.alive());
  CHECK(go.goroutines() == 0);
  CHECK(go.heap_alloc_bytes() == 0);
  CHECK(go.oom_kills() == 1);
  sim.shutdown();
}

TEST_CASE("a leak under GOMEMLIMIT brown-outs before the OOM kill (Go issue 58106)") {
  Simulation sim(2);
  GoConfig cfg = gc_host();
  cfg.container_memory_limit_bytes = 600 * kMiB;
  cfg.gomemlimit_bytes = 450 * kMiB;
  GoProcess go(sim, cfg);
  start_workload(go);
  go.go(gotest::leak(go, kMiB, 50 * kMillisecond));  // 20 MiB/s leak
  sim.run_until(8 * kSecond);                        // live ~ 256 + 160 MiB: near the soft limit
  double frac_near_limit = go.gc_cpu_fraction();
  CHECK(go.alive());
  CHECK((go.gc_limiter_enabled() || frac_near_limit > 0.1));
  sim.run_until(30 * kSecond);
  CHECK(go.oom_kills() == 1);  // the soft limit cannot stop a real leak
  sim.shutdown();
}
