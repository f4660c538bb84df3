#pragma once
// Textbook queues built from nothing but the kernel: a sim::Semaphore with c units is the
// c servers, every customer is a coroutine process that waits on it FIFO, and arrivals,
// service and think times come from named Rng streams. If the event queue, the semaphore's
// FIFO grants or the exponential draws were wrong, these numbers would leave their analytic
// values (queueing_theory.hpp).
#include <cstdint>
#include <vector>

#include "sim/time.hpp"

namespace skysim::validation {

enum class ServiceLaw { Exponential, Deterministic };

// An open station: Poisson arrivals into c servers, FIFO, at most `system_capacity`
// customers inside (0 = unbounded; an arrival that finds it full is turned away).
struct OpenStationConfig {
  int servers = 1;
  int system_capacity = 0;
  double arrival_rate = 0;       // per second
  sim::Duration service_mean = 0;
  ServiceLaw service = ServiceLaw::Exponential;
  sim::Duration warmup = 0;      // statistics cover [warmup, warmup + length)
  sim::Duration length = 0;
};

struct OpenStationResult {
  std::int64_t arrivals = 0;     // in the window
  std::int64_t rejected = 0;
  std::int64_t completed = 0;    // admitted in the window (the run drains them all)
  double mean_wait_s = 0;        // queueing delay (arrival to grant) of those customers
  double mean_sojourn_s = 0;     // arrival to departure
  double waited_fraction = 0;    // completed customers whose wait was > 0
  double mean_in_system = 0;     // time average L
  double mean_in_queue = 0;      // time average Lq
  std::vector<double> state_fraction;  // time fraction with n inside, n = 0..max seen
  std::int64_t fifo_violations = 0;    // with one server: departures out of arrival order
  double window_s = 0;
};

// Throws std::invalid_argument on an impossible configuration.
OpenStationResult run_open_station(const OpenStationConfig& config, std::uint64_t seed);

// A closed network: `customers` loop forever: think (exponential, mean think_time), then
// visit each single-server FIFO station in order (exponential service, mean demands[k]).
struct ClosedNetworkConfig {
  int customers = 1;
  sim::Duration think_time = 0;
  std::vector<sim::Duration> demands;
  sim::Duration warmup = 0;
  sim::Duration length = 0;
};

struct ClosedNetworkResult {
  double throughput_per_s = 0;   // cycles finished in the window / window
  double mean_response_s = 0;    // submit to leaving the last station (cycles inside window)
  std::vector<double> mean_queue_length;  // time average at each station (waiting + served)
  double mean_thinking = 0;      // time average of customers thinking
};

ClosedNetworkResult run_closed_network(const ClosedNetworkConfig& config, std::uint64_t seed);

}  // namespace skysim::validation
