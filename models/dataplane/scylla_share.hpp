#pragma once
// The data plane's share of the Scylla cluster, as the April replay needs it (issue 5: "a
// simple latency-and-capacity model"; the full shard model is models/scylla): at most
// `concurrency` reads in flight, FIFO beyond that, each read lasting a lognormal time fitted
// to a median and a P99 (domain.md §7.6). When memcached is unusable every URI falls through
// to Scylla, the queue grows and requests miss their deadlines — the cache existed to keep
// this load off Scylla (§1.3).
#include <cmath>
#include <cstdint>

#include "sim/histogram.hpp"
#include "sim/process.hpp"
#include "sim/rng.hpp"
#include "sim/sync.hpp"

namespace skysim::dataplane {

class ScyllaShare {
 public:
  ScyllaShare(sim::Rng& rng, int concurrency, sim::Duration median, sim::Duration p99)
      : rng_(rng), slots_(concurrency), mu_(std::log(static_cast<double>(median))) {
    // P99 of a lognormal = exp(mu + 2.3263 sigma).
    sigma_ = (std::log(static_cast<double>(p99)) - mu_) / 2.3263478740408408;
  }

  // One partition read. The semaphore wait is the queueing that overload produces. A read
  // served by a slow node takes `slowdown` times its drawn time (the slow-node fault).
  sim::Task<> read(double slowdown = 1.0) {
    sim::Time queued = now_();
    co_await slots_.acquire(1);
    Release guard{slots_};
    ++in_flight_;
    InFlight count{in_flight_};
    auto d = static_cast<sim::Duration>(rng_.lognormal(mu_, sigma_) * slowdown);
    co_await sim::sleep(d);
    ++reads_;
    latency_.record(now_() - queued);
  }

  std::int64_t in_flight() const { return in_flight_; }
  std::int64_t queued() const { return static_cast<std::int64_t>(slots_.waiters()); }
  std::uint64_t reads() const { return reads_; }
  const sim::Histogram& latency() const { return latency_; }
  void bind_clock(const sim::Simulation& sim) { sim_ = &sim; }

 private:
  struct Release {
    sim::Semaphore& s;
    ~Release() { s.release(1); }
  };
  struct InFlight {
    std::int64_t& n;
    ~InFlight() { --n; }
  };
  sim::Time now_() const { return sim_ ? sim_->now() : 0; }

  sim::Rng& rng_;
  sim::Semaphore slots_;
  double mu_;
  double sigma_ = 1;
  std::int64_t in_flight_ = 0;
  std::uint64_t reads_ = 0;
  sim::Histogram latency_;
  const sim::Simulation* sim_ = nullptr;
};

}  // namespace skysim::dataplane
