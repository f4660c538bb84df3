// Memory that is really there (docs/models/goruntime.md, "Memory"): goroutine stacks at Go
// 1.19's starting size, thread stacks and the kernel's per-thread memory, and what GOMEMLIMIT
// counts of them (Go's own mappings) against what the container limit counts (everything).
#include <catch2/catch.hpp>

#include "models/goruntime/go_process.hpp"
#include "workloads.hpp"

using namespace sim;
using goruntime::GoConfig;
using goruntime::GoProcess;
using goruntime::kKiB;
using goruntime::kMiB;

namespace {

Task<> parked() {
  while (true) co_await sleep(kHour);
}

Task<> parked_with_live(GoProcess& go, std::int64_t bytes) {
  co_await go.alloc_live(bytes);
  while (true) co_await sleep(kHour);
}

}  // namespace

TEST_CASE("a goroutine's stack is the starting size, grown by doubling to fit its use plus the guard") {
  Simulation sim(1);
  GoConfig cfg;
  cfg.adaptive_stack_start = false;
  GoProcess go(sim, cfg);
  // used + 928-B guard: 1000 -> 1928 fits 2 KiB; 1200 -> 2128 needs 4 KiB; 7000 -> 7928: 8 KiB.
  go.go(parked(), 1000);
  go.go(parked(), 1200);
  go.go(parked(), 7000);
  sim.run_until(kMillisecond);
  CHECK(go.stack_bytes() == (2 + 4 + 8) * kKiB);
  CHECK(go.starting_stack_bytes() == 2 * kKiB);
  sim.shutdown();
}

TEST_CASE("Go 1.19: after a GC new goroutines start at the scanned average plus the guard") {
  for (bool adaptive : {true, false}) {
    Simulation sim(1);
    GoConfig cfg;
    cfg.adaptive_stack_start = adaptive;
    GoProcess go(sim, cfg);
    // 100 deep goroutines (6 KiB in use) and 100 shallow ones (512 B): average 3328 B in use,
    // + 928 = 4256, rounded up: 8 KiB.
    for (int i = 0; i < 100; ++i) go.go(parked(), 6 * kKiB);
    for (int i = 0; i < 100; ++i) go.go(parked(), 512);
    go.go(gotest::hold_live(go, 16 * kMiB));  // past the 4 MiB minimum heap: one cycle
    sim.run_until(kSecond);
    REQUIRE(go.gc_cycles() >= 1);
    const std::int64_t before = go.stack_bytes();
    go.go(parked(), 512);  // a shallow goroutine born after that GC
    sim.run_until(kSecond + kMillisecond);
    INFO("adaptive_stack_start " << adaptive);
    CHECK(go.starting_stack_bytes() == (adaptive ? 8 * kKiB : 2 * kKiB));
    CHECK(go.stack_bytes() - before == (adaptive ? 8 * kKiB : 2 * kKiB));
    sim.shutdown();
  }
}

TEST_CASE("each thread costs 58 KiB of the container's memory, 48 KiB of it counted by GOMEMLIMIT") {
  Simulation sim(2);
  GoConfig cfg;
  cfg.cores = 4;
  cfg.gomemlimit_bytes = 512 * kMiB;
  cfg.gogc = -1;  // the goal is the limit's alone
  GoProcess go(sim, cfg);
  // ~200 writers asleep in write(2) at once, each holding an M: the thread count grows.
  gotest::FixedBlockTarget slow(20 * kMillisecond);
  sim.spawn(gotest::log_writers(go, slow, 10'000, 2 * kSecond, false));
  sim.run_until(kSecond);
  const std::int64_t threads = go.threads();
  REQUIRE(threads > 100);
  const std::int64_t per_thread = cfg.g0_stack_bytes + cfg.signal_stack_bytes + cfg.os_thread_bytes;
  CHECK(per_thread == 58 * kKiB);  // docs/testbed.md: ~58 KiB charged per extra thread
  CHECK(go.thread_bytes() == threads * per_thread);
  CHECK(go.rss_bytes() ==
        go.heap_alloc_bytes() + go.stack_bytes() + go.thread_bytes() + cfg.runtime_base_bytes);
  // The heap goal under the limit leaves room for what the runtime maps: stacks (goroutines',
  // g0 and gsignal) and its metadata, not the kernel's part of each thread.
  const std::int64_t go_counted = go.stack_bytes() +
                                  threads * (cfg.g0_stack_bytes + cfg.signal_stack_bytes) +
                                  cfg.runtime_base_bytes;
  CHECK(go.heap_goal_bytes() == cfg.gomemlimit_bytes - go_counted);
  sim.shutdown();
}

TEST_CASE("a parked goroutine's live data stays in the heap and in the GC's work until it ends") {
  Simulation sim(3);
  GoConfig cfg;
  GoProcess go(sim, cfg);
  for (int i = 0; i < 1000; ++i) go.go(parked_with_live(go, 8 * kKiB));
  sim.run_until(kSecond);
  CHECK(go.heap_live_bytes() == 1000 * 8 * kKiB);
  CHECK(go.gc_cycles() >= 1);
  // Its stack and its data are both in the container's count.
  CHECK(go.rss_bytes() >= 1000 * (8 + 2) * kKiB);
  sim.shutdown();
}
