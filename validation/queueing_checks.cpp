// The queueing half of the selftest: textbook queues on the kernel's Semaphore and on the
// queue-server model, each replicated over seeds at two run lengths and compared with its
// analytic value (queueing_theory.hpp). Little's law L = lambda W is checked on every queue.
#include <functional>
#include <string>
#include <vector>

#include "validation/parallel.hpp"
#include "validation/queue_server_run.hpp"
#include "validation/queueing_theory.hpp"
#include "validation/selftest.hpp"
#include "validation/semaphore_station.hpp"

namespace skysim::validation {
namespace {

constexpr double kServiceRate = 100;  // 1 / 10 ms, every open case
constexpr double kResolution = 0.10;  // a CI wider than 10 % of the value decides nothing
constexpr double kLittleResolution = 0.05;

struct OpenCase {
  std::string name;
  OpenStationConfig config;
  std::vector<OpenStationResult> full, short_runs;
};

struct ScenarioCase {
  std::string name;
  std::string file;
  std::vector<QueueServerObservation> full, short_runs;
};

OpenStationConfig open_config(int c, int k, double lambda, ServiceLaw law) {
  OpenStationConfig cfg;
  cfg.servers = c;
  cfg.system_capacity = k;
  cfg.arrival_rate = lambda;
  cfg.service_mean = 10 * sim::kMillisecond;
  cfg.service = law;
  cfg.warmup = 20 * sim::kSecond;
  return cfg;
}

template <class R, class F>
std::vector<double> each(const std::vector<R>& runs, F&& f) {
  std::vector<double> out;
  for (const auto& r : runs) out.push_back(f(r));
  return out;
}

// One check from the full and short runs of a case.
template <class Case, class F>
ReplicatedCheck make(const Case& c, std::string claim, std::string source, double expected,
                     F&& observe, std::string unit = "", double scale = 1,
                     double resolution = -1) {
  ReplicatedCheck r;
  r.claim = c.name + ": " + std::move(claim);
  r.source = std::move(source);
  r.expected = expected;
  r.per_seed = each(c.full, observe);
  r.per_seed_short = each(c.short_runs, observe);
  r.unit = std::move(unit);
  r.display_scale = scale;
  r.resolution = resolution >= 0 ? resolution : kResolution * expected;
  return r;
}

double little_open(const OpenStationResult& r) {
  const auto admitted = static_cast<double>(r.arrivals - r.rejected);
  return r.mean_in_system / (admitted / r.window_s * r.mean_sojourn_s);
}
double little_scenario(const QueueServerObservation& o) {
  return o.mean_queue_length / (o.started / o.window_s * o.mean_wait_s);
}

}  // namespace

QueueingChecks run_queueing_checks(const SelftestOptions& options) {
  if (options.seeds < 2) {
    throw std::invalid_argument("selftest: need >= 2 seeds for a confidence interval");
  }
  const int shrink = options.quick ? 4 : 1;
  const sim::Duration open_length = 1600 * sim::kSecond / shrink;
  const sim::Duration closed_length = 1600 * sim::kSecond / shrink;
  const sim::Duration scenario_length = 800 * sim::kSecond / shrink;
  const std::string dir =
      options.scenario_dir.empty() ? default_scenario_dir() : options.scenario_dir;
  const auto seeds = static_cast<std::size_t>(options.seeds);
  const std::uint64_t short_seed_base = 1000;  // short runs use other seeds: independent CIs

  std::vector<OpenCase> open{
      {"M/M/1 on Semaphore", open_config(1, 0, 70, ServiceLaw::Exponential), {}, {}},
      {"M/M/4 on Semaphore", open_config(4, 0, 300, ServiceLaw::Exponential), {}, {}},
      {"M/M/2/5 on Semaphore", open_config(2, 5, 180, ServiceLaw::Exponential), {}, {}},
      {"M/D/1 on Semaphore", open_config(1, 0, 70, ServiceLaw::Deterministic), {}, {}},
  };
  struct ClosedCase {
    std::string name = "closed N=12 Z=0.5s on Semaphores";
    ClosedNetworkConfig config;
    std::vector<ClosedNetworkResult> full, short_runs;
  } closed;
  closed.config.customers = 12;
  closed.config.think_time = 500 * sim::kMillisecond;
  closed.config.demands = {40 * sim::kMillisecond, 60 * sim::kMillisecond};
  closed.config.warmup = 50 * sim::kSecond;
  std::vector<ScenarioCase> scen{
      {"queue-server M/M/1", dir + "/validation-mm1.yaml", {}, {}},
      {"queue-server M/M/4", dir + "/validation-mmc.yaml", {}, {}},
      {"queue-server M/M/2/5", dir + "/validation-mmck.yaml", {}, {}},
      {"queue-server M/D/1", dir + "/validation-md1.yaml", {}, {}},
  };

  std::vector<std::function<void()>> tasks;
  for (auto& c : open) {
    c.full.resize(seeds);
    c.short_runs.resize(seeds);
    for (std::size_t i = 0; i < seeds; ++i) {
      tasks.push_back([&c, i, open_length] {
        OpenStationConfig cfg = c.config;
        cfg.length = open_length;
        c.full[i] = run_open_station(cfg, i + 1);
      });
      tasks.push_back([&c, i, open_length, short_seed_base] {
        OpenStationConfig cfg = c.config;
        cfg.length = open_length / 4;
        c.short_runs[i] = run_open_station(cfg, short_seed_base + i + 1);
      });
    }
  }
  closed.full.resize(seeds);
  closed.short_runs.resize(seeds);
  for (std::size_t i = 0; i < seeds; ++i) {
    tasks.push_back([&closed, i, closed_length] {
      ClosedNetworkConfig cfg = closed.config;
      cfg.length = closed_length;
      closed.full[i] = run_closed_network(cfg, i + 1);
    });
    tasks.push_back([&closed, i, closed_length, short_seed_base] {
      ClosedNetworkConfig cfg = closed.config;
      cfg.length = closed_length / 4;
      closed.short_runs[i] = run_closed_network(cfg, short_seed_base + i + 1);
    });
  }
  const std::string full_text = std::to_string(scenario_length / sim::kSecond) + "s";
  const std::string short_text = std::to_string(scenario_length / 4 / sim::kSecond) + "s";
  for (auto& c : scen) {
    c.full.resize(seeds);
    c.short_runs.resize(seeds);
    for (std::size_t i = 0; i < seeds; ++i) {
      tasks.push_back([&c, i, full_text] {
        c.full[i] = run_queue_server_scenario(c.file, i + 1, full_text);
      });
      tasks.push_back([&c, i, short_text, short_seed_base] {
        c.short_runs[i] = run_queue_server_scenario(c.file, short_seed_base + i + 1, short_text);
      });
    }
  }
  run_tasks(tasks, options.jobs);

  QueueingChecks out;
  auto add = [&out](ReplicatedCheck c, bool primary = false) {
    if (primary) out.primary.push_back(out.checks.size());
    out.checks.push_back(std::move(c));
  };
  const std::string erlang = "Erlang C (docs/validation.md)";
  const std::string pk = "Pollaczek-Khinchine (docs/validation.md)";
  const std::string ctmc = "CTMC pi Q = 0, Eigen (docs/validation.md)";
  const std::string little = "Little's law L = lambda W";
  auto wait_ms = [](const OpenStationResult& r) { return r.mean_wait_s; };
  auto waited = [](const OpenStationResult& r) { return r.waited_fraction; };
  auto l_ratio = [](const OpenStationResult& r) { return little_open(r); };

  // M/M/1 and M/M/4: mean wait and P(wait) from Erlang C.
  for (int idx : {0, 1}) {
    const OpenCase& c = open[idx];
    const int servers = c.config.servers;
    const double lambda = c.config.arrival_rate;
    add(make(c, "mean wait Wq", erlang, mmc_mean_wait(servers, lambda, kServiceRate), wait_ms,
             "ms", 1e3),
        true);
    add(make(c, "P(wait > 0)", erlang, erlang_c(servers, lambda / kServiceRate), waited));
    add(make(c, "L / (lambda W)", little, 1.0, l_ratio, "", 1, kLittleResolution));
  }
  {
    const OpenCase& c = open[2];
    MmckSolution s = solve_mmck(2, 5, c.config.arrival_rate, kServiceRate);
    add(make(
            c, "blocking P(reject)", ctmc, s.blocking,
            [](const OpenStationResult& r) {
              return static_cast<double>(r.rejected) / static_cast<double>(r.arrivals);
            }),
        true);
    for (std::size_t n = 0; n < s.pi.size(); ++n) {
      add(make(c, "P(N = " + std::to_string(n) + ") time fraction", ctmc, s.pi[n],
               [n](const OpenStationResult& r) {
                 return n < r.state_fraction.size() ? r.state_fraction[n] : 0.0;
               }));
    }
    add(make(c, "L / (lambda_eff W)", little, 1.0, l_ratio, "", 1, kLittleResolution));
  }
  {
    const OpenCase& c = open[3];
    add(make(c, "mean wait Wq", pk, md1_mean_wait(c.config.arrival_rate, 0.010), wait_ms, "ms",
             1e3),
        true);
    add(make(c, "L / (lambda W)", little, 1.0, l_ratio, "", 1, kLittleResolution));
  }
  {
    std::vector<double> demands_s;
    for (sim::Duration d : closed.config.demands) demands_s.push_back(d / 1e9);
    const double z = closed.config.think_time / 1e9;
    MvaResult mva = exact_mva(closed.config.customers, z, demands_s);
    const std::string src = "exact MVA (docs/validation.md)";
    add(make(
            closed, "throughput X", src, mva.throughput,
            [](const ClosedNetworkResult& r) { return r.throughput_per_s; }, "/s"),
        true);
    add(make(
        closed, "response time R", src, mva.response_time,
        [](const ClosedNetworkResult& r) { return r.mean_response_s; }, "ms", 1e3));
    add(make(closed, "bottleneck queue Q2", src, mva.queue_length[1],
             [](const ClosedNetworkResult& r) { return r.mean_queue_length[1]; }));
    const double n = closed.config.customers;
    add(make(
        closed, "X (R + Z) / N", little, 1.0,
        [n, z](const ClosedNetworkResult& r) {
          return r.throughput_per_s * (r.mean_response_s + z) / n;
        },
        "", 1, kLittleResolution));
  }

  // The same queues as a user runs them: scenario files through the queue-server kind.
  auto s_wait = [](const QueueServerObservation& o) { return o.mean_wait_s; };
  auto s_little = [](const QueueServerObservation& o) { return little_scenario(o); };
  add(make(scen[0], "mean wait Wq", erlang, mmc_mean_wait(1, 70, kServiceRate), s_wait, "ms",
           1e3),
      true);
  add(make(scen[0], "Lq / (lambda Wq)", little, 1.0, s_little, "", 1, kLittleResolution));
  add(make(scen[1], "mean wait Wq", erlang, mmc_mean_wait(4, 300, kServiceRate), s_wait, "ms",
           1e3),
      true);
  add(make(scen[1], "P(wait > 0)", erlang, erlang_c(4, 3.0),
           [](const QueueServerObservation& o) { return o.waited_fraction; }));
  add(make(scen[1], "Lq / (lambda Wq)", little, 1.0, s_little, "", 1, kLittleResolution));
  add(make(scen[2], "blocking P(reject)", ctmc, solve_mmck(2, 5, 180, kServiceRate).blocking,
           [](const QueueServerObservation& o) { return o.rejected / o.arrivals; }),
      true);
  add(make(scen[2], "Lq / (lambda_eff Wq)", little, 1.0, s_little, "", 1, kLittleResolution));
  add(make(scen[3], "mean wait Wq", pk, md1_mean_wait(70, 0.010), s_wait, "ms", 1e3), true);
  add(make(scen[3], "Lq / (lambda Wq)", little, 1.0, s_little, "", 1, kLittleResolution));

  for (const auto& c : open) {
    for (const auto* runs : {&c.full, &c.short_runs}) {
      for (const auto& r : *runs) {
        out.fifo_violations += r.fifo_violations;
        ++out.kernel_runs;
      }
    }
  }
  for (const auto& c : scen) {
    for (const auto* runs : {&c.full, &c.short_runs}) {
      for (const auto& o : *runs) out.scenario_invariants_hold &= o.invariants_hold;
    }
  }
  return out;
}

}  // namespace skysim::validation
