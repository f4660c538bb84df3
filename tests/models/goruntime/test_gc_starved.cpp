// The GC's threads on a starved host (docs/models/goruntime.md, "The GC on the host's cores"):
// a mark of W CPU-ns by one dedicated worker among k other runnable threads on c cores takes
// W * max(1, (k + 1) / c) under fair sharing; a stop-the-world waits for each P running Go
// code to take the preemption request on a core, and for the stopping M to get one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "models/goruntime/go_process.hpp"
#include "workloads.hpp"

using namespace sim;
using goruntime::CoreSharing;
using goruntime::GoConfig;
using goruntime::GoProcess;
using goruntime::kKiB;
using goruntime::kMiB;

namespace {

constexpr std::int64_t kLive = 64 * kMiB;

// A thread computing in the kernel for a long time (bind(2) over a full port range, forever).
Task<> kernel_spin(GoProcess& go) { co_await go.syscall_cpu(100 * kSecond); }

// Go code that never stops wanting its P.
Task<> go_spin(GoProcess& go) {
  while (true) co_await go.cpu(kSecond);
}

// Requests arriving from the network at a fixed rate, each allocating garbage (their own CPU
// is negligible: the offered rate does not slow with the host); counts what was allocated.
Task<> counted_garbage(GoProcess& go, std::int64_t bytes, Duration every, std::int64_t& total) {
  while (true) {
    co_await go.alloc(bytes);
    total += bytes;
    co_await sleep(every);
  }
}

Task<> allocate_live(GoProcess& go, std::int64_t bytes) {
  co_await go.alloc_live(bytes);
  while (true) co_await sleep(kHour);
}

struct MarkRun {
  Duration mark;
  double work_ns;  // W: what the mark had to scan at 1 ns per byte
};

// k kernel threads spinning on `cores` cores; GOMAXPROCS 4 gives one dedicated mark worker
// and no fractional one (25 % of 4). One 64 MiB allocation starts the only cycle.
MarkRun mark_with_spinners(int k, int cores, CoreSharing sharing) {
  Simulation sim(3);
  GoConfig cfg;
  cfg.cores = cores;
  cfg.gomaxprocs = 4;
  cfg.core_sharing = sharing;
  GoProcess go(sim, cfg);
  for (int i = 0; i < k; ++i) go.go(kernel_spin(go));
  sim.run_until(200 * kMillisecond);  // every spinner is in its syscall, its P retaken
  REQUIRE(go.ms_in_syscall() == k);
  go.go(allocate_live(go, kLive));
  sim.run_until(200 * kMillisecond + 10 * kSecond);
  REQUIRE(go.gc_cycles() == 1);
  bool ok = go.invariants_hold();
  CHECK(ok);
  // Scanned: the heap, the goroutines' stacks in use, the globals.
  const double w = static_cast<double>(kLive + (k + 1) * cfg.stack_used_bytes + cfg.globals_bytes) *
                   cfg.mark_ns_per_byte;
  MarkRun r{go.last_mark(), w};
  sim.shutdown();
  return r;
}

}  // namespace

TEST_CASE("a mark of W CPU-ns among k runnable threads on c cores takes W * max(1, (k+1)/c)") {
  const int c = 2;
  for (int k : {0, 1, 3, 7, 15}) {
    MarkRun r = mark_with_spinners(k, c, CoreSharing::kProcessorSharing);
    const double expected = r.work_ns * std::max(1.0, (k + 1.0) / c);
    INFO("k=" << k << " mark " << to_seconds(r.mark) * 1e3 << " ms, theory " << expected / 1e6
              << " ms");
    CHECK(static_cast<double>(r.mark) == Approx(expected).epsilon(0.02));
  }
}

TEST_CASE("under EEVDF time slices the mark worker gets its fair share too, in the long run") {
  const int c = 2;
  for (int k : {3, 7}) {
    MarkRun r = mark_with_spinners(k, c, CoreSharing::kEevdf);
    const double expected = r.work_ns * (k + 1.0) / c;
    INFO("k=" << k << " mark " << to_seconds(r.mark) * 1e3 << " ms, fair share " << expected / 1e6
              << " ms");
    CHECK(static_cast<double>(r.mark) == Approx(expected).epsilon(0.2));
  }
}

namespace {

// The sweep-termination pause of a process whose 2 Ps run Go code while k threads compute in
// the kernel, on 2 cores.
Duration stop_pause(int k, CoreSharing sharing, bool contention = true) {
  Simulation sim(4);
  GoConfig cfg;
  cfg.cores = 2;
  cfg.gomaxprocs = 2;
  cfg.core_sharing = sharing;
  cfg.cpu_contention = contention;
  GoProcess go(sim, cfg);
  for (int i = 0; i < k; ++i) go.go(kernel_spin(go));
  sim.run_until(300 * kMillisecond);  // the spinners got into their syscalls and lost their Ps
  for (int i = 0; i < 2; ++i) go.go(go_spin(go));
  sim.run_until(400 * kMillisecond);
  REQUIRE(go.ms_in_syscall() == k);
  REQUIRE(go.ps_running() == 2);
  go.go(allocate_live(go, kLive));
  // The mark (>= 65 ms of CPU) is still going 20 ms later: the last pause is the first one.
  sim.run_until(420 * kMillisecond);
  REQUIRE(go.stw_pauses().count() == 1);
  Duration pause = go.last_stw();
  sim.shutdown();
  return pause;
}

}  // namespace

TEST_CASE("stop-the-world waits for the running Ps' Ms to get a core: pause vs runnable per core") {
  // Processor sharing, n runnable threads on c cores each at c/n. With k >= 2 spinners the two
  // Go-code Ms share the cores as jobs: the two requests are taken among k spinners, the two
  // Go-code Ms and the two requests (k + 4), then the stopping M does its 10 us among k + 3.
  // With none, the Go-code Ms found the cores free: each takes its request on its own core and
  // then sleeps in gcstopm, so the stopping M has a core to itself.
  GoConfig cfg;
  const double c = 2;
  const auto ack = static_cast<double>(cfg.preempt_ack_cpu);
  const auto work = static_cast<double>(cfg.stw_base);
  for (int k : {0, 2, 6, 14}) {
    const double theory = k == 0 ? ack + work : ack * (k + 4) / c + work * (k + 3) / c;
    Duration pause = stop_pause(k, CoreSharing::kProcessorSharing);
    INFO("k=" << k << " pause " << pause / 1e3 << " us, theory " << theory / 1e3 << " us");
    CHECK(static_cast<double>(pause) == Approx(theory).epsilon(0.1));
  }
}

TEST_CASE("under EEVDF a stop waits for slices to end, about a slice whatever the load") {
  // EEVDF's 3-ms slices: a request queued behind running spinners waits until a core comes
  // free, and a newly placed thread (lag 0, deadline half a slice away) is picked within about
  // a slice or two: the pause is milliseconds, bounded by slices rather than growing with k as
  // under processor sharing.
  GoConfig cfg;
  Duration calm = stop_pause(0, CoreSharing::kEevdf);
  INFO("k=0 pause " << calm / 1e3 << " us");
  CHECK(static_cast<double>(calm) ==
        Approx(static_cast<double>(cfg.preempt_ack_cpu + cfg.stw_base)).epsilon(0.01));  // own cores
  for (int k : {2, 6, 14}) {
    Duration pause = stop_pause(k, CoreSharing::kEevdf);
    INFO("k=" << k << " pause " << pause / 1e3 << " us");
    CHECK(pause > 100 * kMicrosecond);
    CHECK(pause < 4 * cfg.time_slice);
  }
}

TEST_CASE("without CPU contention every M has a core: the pause is the request plus the work") {
  GoConfig cfg;
  for (int k : {0, 14}) {
    Duration pause = stop_pause(k, CoreSharing::kProcessorSharing, false);
    INFO("k=" << k << " pause " << pause / 1e3 << " us");
    CHECK(static_cast<double>(pause) ==
          Approx(static_cast<double>(cfg.preempt_ack_cpu + cfg.stw_base)).epsilon(0.01));
  }
}

TEST_CASE("Ps in syscalls are taken without waiting: blocked threads do not lengthen the pause") {
  auto pause_with_writers = [](double writes_per_s) {
    Simulation sim(9);
    GoConfig cfg;
    cfg.cores = 4;
    GoProcess go(sim, cfg);
    gotest::FixedBlockTarget slow(20 * kMillisecond);
    sim.spawn(gotest::log_writers(go, slow, writes_per_s, kSecond, false));
    sim.run_until(kSecond);
    go.go(gotest::hold_live(go, 64 * kMiB));  // forces a GC cycle
    sim.run_until(2 * kSecond);
    std::pair<Duration, std::int64_t> r{go.peak_stw(), go.threads()};
    sim.shutdown();
    return r;
  };
  auto [calm, calm_threads] = pause_with_writers(100);
  // ~400 writers asleep in write(2): their Ms hold no P and want no core.
  auto [storm, storm_threads] = pause_with_writers(20'000);
  CHECK(storm_threads > 350);
  CHECK(calm < 20 * kMicrosecond);
  CHECK(storm < 20 * kMicrosecond);
}

TEST_CASE("a starved mark: assists hold the heap near its goal by slowing the allocators") {
  // Requests arrive at a fixed rate and allocate 32 KiB each (320 MB/s offered). A mark that
  // takes (k+1)/c times as long leaves more to do per byte allocated: the assists (on starved
  // cores too) make each allocating goroutine mark for longer, so the allocation achieved
  // falls while the heap peaks about where it did (gcAssistAlloc: the pacer's bound on the heap).
  struct Out {
    double peak_over_live;
    double mb_per_s;
  };
  auto run = [](int k) {
    Simulation sim(5);
    GoConfig cfg;
    cfg.cores = 2;
    cfg.gomaxprocs = 4;
    GoProcess go(sim, cfg);
    for (int i = 0; i < k; ++i) go.go(kernel_spin(go));
    sim.run_until(200 * kMillisecond);
    go.go(gotest::hold_live(go, 128 * kMiB));
    std::int64_t allocated = 0;
    go.go(counted_garbage(go, 32 * kKiB, 100 * kMicrosecond, allocated));
    sim.run_until(5200 * kMillisecond);
    Out o{static_cast<double>(go.heap_peak_bytes()) / (128.0 * kMiB),
          static_cast<double>(allocated) / 5e6};
    sim.shutdown();
    return o;
  };
  Out fed = run(0);
  Out starved = run(7);
  WARN("fed: heap peak / live " << fed.peak_over_live << ", " << fed.mb_per_s
                                << " MB/s; starved (8 runnable on 2 cores): "
                                << starved.peak_over_live << ", " << starved.mb_per_s << " MB/s");
  CHECK(starved.mb_per_s < 0.9 * fed.mb_per_s);
  CHECK(starved.peak_over_live == Approx(fed.peak_over_live).epsilon(0.1));
}
