#include <catch2/catch.hpp>
#include <string>

#include "models/goruntime/errgroup.hpp"
#include "models/goruntime/go_process.hpp"
#include "workloads.hpp"

using namespace sim;
using errgroup::Error;
using goruntime::GoConfig;
using goruntime::GoProcess;

namespace {

// One URI of GetPostRecord: a little Go CPU, a blocking syscall, a 4 KiB live object.
Task<Error> handle_uri(GoProcess& go, goruntime::WriteTarget& fd) {
  co_await go.alloc_live(4096);
  co_await go.cpu(20 * kMicrosecond);
  co_await go.syscall_write(fd, 300);
  go.release(4096);
  co_return Error{};
}

// The handler: one errgroup goroutine per URI, optionally bounded.
Task<> get_post_record(GoProcess& go, goruntime::WriteTarget& fd, int uris, int limit, Error& out) {
  errgroup::Group group(go.simulation(), go.launcher());
  if (limit > 0) {
    group.set_limit(limit);
  }
  for (int i = 0; i < uris; ++i) {
    auto task = [&go, &fd] { return handle_uri(go, fd); };
    co_await group.go(task);
  }
  out = co_await group.wait();
}

struct Peak {
  std::int64_t goroutines = 0;
  std::int64_t threads = 0;
};

Process sample_peak(GoProcess& go, Peak& peak) {
  while (true) {
    co_await sim::sleep(100 * kMicrosecond);
    peak.goroutines = std::max(peak.goroutines, go.goroutines());
    peak.threads = std::max(peak.threads, go.threads());
  }
}

}  // namespace

TEST_CASE("the April handler on a GoProcess: SetLimit(50) bounds goroutines and threads") {
  auto run = [](int limit) {
    Simulation sim(1);
    GoConfig cfg;
    cfg.cores = 4;
    GoProcess go(sim, cfg);
    gotest::FixedBlockTarget fd(20 * kMillisecond);
    Error err;
    Peak peak;
    go.go(get_post_record(go, fd, 15'000, limit, err));
    sim.spawn(sample_peak(go, peak));
    sim.run_until(20 * kSecond);
    INFO("limit " << limit << " started " << go.syscalls());
    CHECK(go.goroutines() == 0);
    CHECK(err.is_nil());
    sim.shutdown();
    return peak;
  };
  Peak unbounded = run(0);
  Peak bounded = run(50);
  WARN("15k-URI batch: unbounded peak goroutines "
       << unbounded.goroutines << " threads " << unbounded.threads << "; SetLimit(50) "
       << bounded.goroutines << " / " << bounded.threads);
  CHECK(unbounded.goroutines > 14'000);
  CHECK(bounded.goroutines <= 51 + 1);
  CHECK(unbounded.threads > 5 * bounded.threads);
}

TEST_CASE("a crash kills every goroutine of the group, the handler included") {
  Simulation sim(1);
  GoConfig cfg;
  cfg.cores = 4;
  cfg.container_memory_limit_bytes = 64 * goruntime::kMiB;  // 15k × (2 KiB + 4 KiB) ≈ 90 MiB
  GoProcess go(sim, cfg);
  gotest::FixedBlockTarget fd(50 * kMillisecond);
  Error err("never set");
  int crashes = 0;
  go.on_crash([&](goruntime::CrashReason, const std::string&) { ++crashes; });
  go.go(get_post_record(go, fd, 15'000, 0, err));
  sim.run_until(kSecond);
  CHECK(crashes == 1);
  CHECK(go.oom_kills() == 1);
  CHECK(err.text() == "never set");  // Wait never returned: the handler died too
  CHECK(go.goroutines() == 0);
  sim.run_until(60 * kSecond);
  CHECK(go.alive());
  CHECK(sim.live_processes() == 0);  // every frame finished (cancelled), nothing leaked
  sim.shutdown();
}
