#pragma once
// Small Go programs the goruntime tests run.
#include <algorithm>
#include <cstdint>

#include "models/goruntime/go_process.hpp"
#include "sim/histogram.hpp"
#include "sim/process.hpp"

namespace gotest {

using goruntime::GoProcess;

// A file descriptor whose every write(2) blocks for a fixed time (the logsink model has the
// full pipe; this keeps goruntime's tests free of it).
struct FixedBlockTarget : goruntime::WriteTarget {
  explicit FixedBlockTarget(sim::Duration d) : block(d) {}
  sim::Time complete_write(sim::Time now, std::int64_t) override { return now + block; }
  sim::Duration block;
};

// A request goroutine: `service` of Go CPU; records its response time.
inline sim::Task<> cpu_job(GoProcess& go, sim::Duration service, sim::Histogram& latency) {
  sim::Time start = go.simulation().now();
  co_await go.cpu(service);
  latency.record(go.simulation().now() - start);
}

// Poisson arrivals of cpu_job goroutines with exponential service times.
inline sim::Process mmc_arrivals(GoProcess& go, double rate_per_s, sim::Duration mean_service,
                                 sim::Time until, sim::Histogram& latency) {
  sim::Rng& rng = go.simulation().stream("test/mmc");
  while (go.simulation().now() < until) {
    co_await sim::sleep(static_cast<sim::Duration>(rng.exponential(1e9 / rate_per_s)));
    go.go(cpu_job(go, std::max<sim::Duration>(1, rng.exponential_duration(mean_service)), latency));
  }
}

inline sim::Task<> write_once(GoProcess& go, goruntime::WriteTarget& sink, std::int64_t bytes) {
  co_await go.syscall_write(sink, bytes);
}

// One goroutine per log write, `rate_per_s` of them, evenly spaced (or Poisson).
inline sim::Process log_writers(GoProcess& go, goruntime::WriteTarget& sink, double rate_per_s,
                                sim::Time until, bool poisson) {
  sim::Rng& rng = go.simulation().stream("test/writers");
  auto gap = static_cast<sim::Duration>(1e9 / rate_per_s);
  while (go.simulation().now() < until && go.alive()) {
    co_await sim::sleep(poisson ? rng.exponential_duration(gap) : gap);
    if (go.alive()) {
      go.go(write_once(go, sink, 200));
    }
  }
}

// Samples the runtime's bookkeeping invariants every `every` while the run goes on.
inline sim::Process watch_invariants(GoProcess& go, sim::Duration every, bool& ok) {
  while (true) {
    co_await sim::sleep(every);
    ok = ok && go.invariants_hold();
  }
}

// The live set: allocated once, kept reachable.
inline sim::Task<> hold_live(GoProcess& go, std::int64_t bytes) {
  co_await go.alloc_live(bytes);
  while (true) {
    co_await sim::sleep(sim::kHour);
  }
}

// A mutator: Go CPU then short-lived garbage, forever.
inline sim::Task<> churn(GoProcess& go, sim::Duration work, std::int64_t garbage_bytes) {
  while (true) {
    co_await go.cpu(work);
    co_await go.alloc(garbage_bytes);
  }
}

// A leak: keeps allocating reachable memory.
inline sim::Task<> leak(GoProcess& go, std::int64_t step_bytes, sim::Duration every) {
  while (true) {
    co_await go.alloc_live(step_bytes);
    co_await sim::sleep(every);
  }
}

// One blocking syscall of `d` (kernel CPU when `kernel_cpu`: a port search); notes the latest
// return.
inline sim::Task<> one_syscall(GoProcess& go, sim::Duration d, sim::Time& last_return,
                               bool kernel_cpu = false) {
  if (kernel_cpu) {
    co_await go.syscall_cpu(d);
  } else {
    co_await go.syscall(d);
  }
  last_return = std::max(last_return, go.simulation().now());
}

}  // namespace gotest
