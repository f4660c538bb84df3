#include "validation/semaphore_station.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/process.hpp"
#include "sim/simulation.hpp"
#include "sim/sync.hpp"
#include "validation/time_average.hpp"

namespace skysim::validation {
namespace {

sim::Duration draw_exponential(sim::Rng& rng, double mean_ns) {
  return std::llround(rng.exponential(mean_ns));
}

struct OpenStation {
  OpenStation(sim::Simulation& s, const OpenStationConfig& c)
      : sim(s),
        config(c),
        servers(c.servers),
        arrival_stream(s.stream("validation/station/arrivals")),
        service_stream(s.stream("validation/station/service")),
        window_start(c.warmup),
        window_end(c.warmup + c.length),
        in_system(c.warmup, c.warmup + c.length),
        in_queue(c.warmup, c.warmup + c.length),
        customer_kind(s.intern_kind("validation.customer")) {}

  bool in_window(sim::Time t) const { return t >= window_start && t < window_end; }
  sim::Duration service_time() {
    if (config.service == ServiceLaw::Deterministic) return config.service_mean;
    return draw_exponential(service_stream, static_cast<double>(config.service_mean));
  }

  sim::Simulation& sim;
  const OpenStationConfig& config;
  sim::Semaphore servers;
  sim::Rng& arrival_stream;
  sim::Rng& service_stream;
  sim::Time window_start;
  sim::Time window_end;
  TimeAverage in_system;
  TimeAverage in_queue;
  sim::Kind customer_kind;
  std::uint64_t next_ticket = 0;
  std::uint64_t last_started = 0;
  bool any_started = false;
  OpenStationResult result;
  double wait_sum_ns = 0;
  double sojourn_sum_ns = 0;
  std::int64_t waited = 0;
};

sim::Process customer(OpenStation& st, std::uint64_t ticket) {
  const sim::Time arrived = st.sim.now();
  st.in_system.set(arrived, st.in_system.level() + 1);
  st.in_queue.set(arrived, st.in_queue.level() + 1);
  co_await st.servers.acquire();
  const sim::Time started = st.sim.now();
  st.in_queue.set(started, st.in_queue.level() - 1);
  // A FIFO semaphore starts service in arrival order, whatever the number of servers.
  if (st.any_started && ticket < st.last_started) ++st.result.fifo_violations;
  st.last_started = ticket;
  st.any_started = true;
  co_await sim::sleep(st.service_time());
  st.servers.release();
  const sim::Time left = st.sim.now();
  st.in_system.set(left, st.in_system.level() - 1);
  if (st.in_window(arrived)) {
    ++st.result.completed;
    st.wait_sum_ns += static_cast<double>(started - arrived);
    st.sojourn_sum_ns += static_cast<double>(left - arrived);
    if (started > arrived) ++st.waited;
  }
}

sim::Process poisson_arrivals(OpenStation& st) {
  const double mean_gap_ns = 1e9 / st.config.arrival_rate;
  for (;;) {
    co_await sim::sleep(draw_exponential(st.arrival_stream, mean_gap_ns));
    if (st.sim.now() >= st.window_end) co_return;  // the rest of the run only drains
    const bool counted = st.in_window(st.sim.now());
    if (counted) ++st.result.arrivals;
    if (st.config.system_capacity > 0 && st.in_system.level() >= st.config.system_capacity) {
      if (counted) ++st.result.rejected;
      continue;
    }
    st.sim.spawn(customer(st, st.next_ticket++), st.customer_kind);
  }
}

void check_window(sim::Duration warmup, sim::Duration length, const char* what) {
  if (warmup < 0 || length <= 0) {
    throw std::invalid_argument(std::string(what) + ": need warmup >= 0 and length > 0");
  }
}

}  // namespace

OpenStationResult run_open_station(const OpenStationConfig& config, std::uint64_t seed) {
  if (config.servers < 1 || config.system_capacity < 0 ||
      (config.system_capacity > 0 && config.system_capacity < config.servers) ||
      !(config.arrival_rate > 0) || config.service_mean <= 0) {
    throw std::invalid_argument(
        "run_open_station: need servers >= 1, capacity 0 or >= servers, positive rates");
  }
  check_window(config.warmup, config.length, "run_open_station");
  sim::Simulation sim(seed);
  OpenStation st(sim, config);
  sim.spawn(poisson_arrivals(st), "validation.arrivals");
  // Run past the window until every customer who arrived in it has left, so W covers all of
  // them: the time-average L then differs from lambda W only by the two boundary terms
  // (customers present when the window opens and when it closes), equal in expectation.
  sim.run();
  st.in_system.advance(st.window_end);
  st.in_queue.advance(st.window_end);
  sim.shutdown();

  OpenStationResult r = st.result;
  r.window_s = static_cast<double>(config.length) / 1e9;
  if (r.completed > 0) {
    r.mean_wait_s = st.wait_sum_ns / static_cast<double>(r.completed) / 1e9;
    r.mean_sojourn_s = st.sojourn_sum_ns / static_cast<double>(r.completed) / 1e9;
    r.waited_fraction = static_cast<double>(st.waited) / static_cast<double>(r.completed);
  }
  r.mean_in_system = st.in_system.mean();
  r.mean_in_queue = st.in_queue.mean();
  for (std::size_t n = 0; n < st.in_system.levels(); ++n) {
    r.state_fraction.push_back(st.in_system.fraction_at(n));
  }
  return r;
}

namespace {

struct ClosedNetwork {
  ClosedNetwork(sim::Simulation& s, const ClosedNetworkConfig& c)
      : sim(s),
        config(c),
        think_stream(s.stream("validation/closed/think")),
        window_start(c.warmup),
        window_end(c.warmup + c.length),
        thinking(c.warmup, c.warmup + c.length) {
    for (std::size_t k = 0; k < c.demands.size(); ++k) {
      stations.push_back(std::make_unique<sim::Semaphore>(1));
      service_streams.push_back(&s.stream("validation/closed/station/" + std::to_string(k)));
      at_station.emplace_back(c.warmup, c.warmup + c.length);
    }
  }

  sim::Simulation& sim;
  const ClosedNetworkConfig& config;
  sim::Rng& think_stream;
  std::vector<std::unique_ptr<sim::Semaphore>> stations;
  std::vector<sim::Rng*> service_streams;
  sim::Time window_start;
  sim::Time window_end;
  TimeAverage thinking;
  std::vector<TimeAverage> at_station;
  std::int64_t cycles_done = 0;      // finished inside the window
  std::int64_t cycles_measured = 0;  // started and finished inside the window
  double response_sum_ns = 0;
};

sim::Process closed_customer(ClosedNetwork& net) {
  for (;;) {
    net.thinking.set(net.sim.now(), net.thinking.level() + 1);
    co_await sim::sleep(
        draw_exponential(net.think_stream, static_cast<double>(net.config.think_time)));
    const sim::Time submitted = net.sim.now();
    net.thinking.set(submitted, net.thinking.level() - 1);
    for (std::size_t k = 0; k < net.stations.size(); ++k) {
      TimeAverage& here = net.at_station[k];
      here.set(net.sim.now(), here.level() + 1);
      co_await net.stations[k]->acquire();
      co_await sim::sleep(draw_exponential(*net.service_streams[k],
                                           static_cast<double>(net.config.demands[k])));
      net.stations[k]->release();
      here.set(net.sim.now(), here.level() - 1);
    }
    const sim::Time done = net.sim.now();
    if (done >= net.window_start && done < net.window_end) {
      ++net.cycles_done;
      if (submitted >= net.window_start) {
        ++net.cycles_measured;
        net.response_sum_ns += static_cast<double>(done - submitted);
      }
    }
  }
}

}  // namespace

ClosedNetworkResult run_closed_network(const ClosedNetworkConfig& config, std::uint64_t seed) {
  if (config.customers < 1 || config.think_time <= 0 || config.demands.empty()) {
    throw std::invalid_argument(
        "run_closed_network: need customers >= 1, think_time > 0 and at least one station");
  }
  for (sim::Duration d : config.demands) {
    if (d <= 0) throw std::invalid_argument("run_closed_network: station demands must be > 0");
  }
  check_window(config.warmup, config.length, "run_closed_network");
  sim::Simulation sim(seed);
  ClosedNetwork net(sim, config);
  for (int i = 0; i < config.customers; ++i) sim.spawn(closed_customer(net), "validation.user");
  sim.run_until(net.window_end);
  net.thinking.advance(net.window_end);
  for (auto& a : net.at_station) a.advance(net.window_end);
  sim.shutdown();

  ClosedNetworkResult r;
  const double window_s = static_cast<double>(config.length) / 1e9;
  r.throughput_per_s = static_cast<double>(net.cycles_done) / window_s;
  if (net.cycles_measured > 0) {
    r.mean_response_s = net.response_sum_ns / static_cast<double>(net.cycles_measured) / 1e9;
  }
  for (const auto& a : net.at_station) r.mean_queue_length.push_back(a.mean());
  r.mean_thinking = net.thinking.mean();
  return r;
}

}  // namespace skysim::validation
