#include "scenarios/machine.hpp"

#include <stdexcept>

#include "models/goruntime/config.hpp"
#include "scenarios/param_scaling.hpp"

namespace skysim::scenarios {

namespace {
// A process's incarnations below 2^20 (a restart every second for twelve days), so bases
// 2^20 apart never meet.
constexpr std::uint32_t kOwnerStride = std::uint32_t{1} << 20;
}  // namespace

PortRangeSysctl::PortRangeSysctl(const sim::ParamValues& p, double scale)
    : written_lo_(static_cast<std::uint16_t>(p.count("port_range_low"))),
      written_hi_(static_cast<std::uint16_t>(p.count("port_range_high"))),
      scale_(scale) {}

std::uint16_t PortRangeSysctl::hi() const {
  if (scale_ == 1.0 || written_hi_ < written_lo_) return written_hi_;  // validate() names it
  const std::int64_t kept = scaled_amount(written_hi_ - written_lo_ + 1, scale_);
  return static_cast<std::uint16_t>(written_lo_ + kept - 1);
}

void PortRangeSysctl::set(net::NetNamespace& ns, std::string_view name,
                          const sim::ParamValue& value) {
  const auto port = static_cast<std::uint16_t>(value.integer);
  const bool low = name == "port_range_low";
  const std::uint16_t was = low ? written_lo_ : written_hi_;
  (low ? written_lo_ : written_hi_) = port;
  try {
    if (written_lo_ > written_hi_) throw std::invalid_argument("port_lo above port_hi");
    ns.set_port_range(lo(), hi());
  } catch (const std::invalid_argument& e) {
    (low ? written_lo_ : written_hi_) = was;
    throw std::invalid_argument(ns.name() + ": " + std::string(name) + " " + value.text + ": " +
                                e.what() + " (set the other end first)");
  }
}

net::NetSysctl machine_net_sysctl(const sim::ParamValues& p, double scale) {
  const PortRangeSysctl range(p, scale);
  net::NetSysctl n;
  n.port_lo = range.lo();
  n.port_hi = range.hi();
  n.time_wait = p.duration("time_wait");
  n.tw_reuse = static_cast<int>(p.integer("tcp_tw_reuse"));
  n.validate();
  return n;
}

Machine::Machine(sim::Simulation& sim, sim::MetricsRegistry& metrics, std::string path,
                 const sim::ParamValues& written, double scale)
    : Machine(sim, metrics, std::move(path), written,
              scaled_values(machine_params(), written, scale), scale) {}

Machine::Machine(sim::Simulation& sim, sim::MetricsRegistry& metrics, std::string path,
                 const sim::ParamValues& written, const sim::ParamValues& params, double scale)
    : sim_(sim),
      path_(std::move(path)),
      port_range_(written, scale),
      ns_(sim, machine_net_sysctl(written, scale), path_ + "/netns"),
      cpu_(sim, static_cast<int>(params.count("cores")),
           goruntime::parse_core_sharing(params.choice("core_sharing")),
           params.duration("time_slice")),
      memory_(params.size_bytes("memory")),
      eviction_threshold_(params.size_bytes("eviction_memory_available")),
      eviction_period_(params.duration("eviction_period")),
      eviction_replacement_(params.duration("eviction_replacement")),
      eviction_kind_(sim.intern_kind("machine.eviction")) {
  cpu_.set_actor(sim.new_actor_id());
  const sim::Labels at = {{"machine", path_}};
  metrics.gauge_fn("machine.time_wait", at, [this] { return double(ns_.time_wait_count()); });
  metrics.gauge_fn("machine.runnable_threads", at, [this] { return double(cpu_.runnable()); });
  metrics.gauge_fn("machine.processes", at, [this] { return double(placed_.size()); });
  metrics.gauge_fn("machine.rss_bytes", at, [this] {
    std::int64_t sum = 0;
    for (const Placed& p : placed_) sum += p.alive() ? p.rss() : 0;
    return double(sum);
  });
  metrics.counter_fn("machine.oom_kills", at, [this] { return double(oom_kills_); });
  metrics.counter_fn("machine.evictions", at, [this] { return double(evictions_); });
  if (memory_ > 0 && eviction_threshold_ > 0) {
    sim_.call_at(eviction_period_, eviction_kind_, [this] { eviction_sync(); });
  }
}

net::OwnerId Machine::place(goruntime::GoProcess& process) {
  placed_.push_back(
      {.go = &process, .cache = nullptr, .kill_cache = {}, .pinned_alive = {}, .pinned_memory = 0});
  const std::uint32_t n = ++go_processes_;
  if (n >= std::uint32_t{0xFFFFFFFF} / kOwnerStride) {
    throw std::length_error("machine " + path_ + ": too many processes");
  }
  if (memory_ > 0) process.set_memory_watch([this] { check_memory(); });
  return n * kOwnerStride;
}

void Machine::place(memcached::Server& server, KillFn kill) {
  server.run_on(cpu_);
  placed_.push_back({.go = nullptr,
                     .cache = &server,
                     .kill_cache = std::move(kill),
                     .pinned_alive = {},
                     .pinned_memory = 0});
  if (memory_ > 0) server.set_memory_watch([this] { check_memory(); });
}

void Machine::place_pinned(std::string what, int cores, std::int64_t memory,
                           std::function<bool()> alive, KillFn kill) {
  for (const Placed& p : placed_) {
    if (!p.pinned_alive) {
      throw std::invalid_argument("machine " + path_ + ": " + what +
                                  " pins cores after other processes were placed here (declare "
                                  "it above the services that share the machine)");
    }
  }
  try {
    cpu_.reserve(cores);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("machine " + path_ + ": " + what + ": " + e.what());
  }
  placed_.push_back({.go = nullptr,
                     .cache = nullptr,
                     .kill_cache = std::move(kill),
                     .pinned_alive = std::move(alive),
                     .pinned_memory = memory});
  check_memory();
}

void Machine::set(std::string_view name, const sim::ParamValue& value) {
  if (name == "tcp_tw_reuse") {
    ns_.set_tw_reuse(static_cast<int>(value.integer));
    return;
  }
  if (name == "port_range_low" || name == "port_range_high") {
    port_range_.set(ns_, name, value);
    return;
  }
  throw std::logic_error("machine " + path_ + ": " + std::string(name) +
                         " cannot change during a run");
}

std::int64_t Machine::rss_sum(Placed*& largest) {
  std::int64_t sum = 0;
  std::int64_t most = -1;
  largest = nullptr;
  for (Placed& p : placed_) {
    if (!p.alive()) continue;
    const std::int64_t rss = p.rss();
    sum += rss;
    if (rss > most) {
      most = rss;
      largest = &p;
    }
  }
  return sum;
}

void Machine::check_memory() {
  if (killing_) return;
  Placed* victim = nullptr;
  // The most memory dies (oom_badness), whichever process allocated last.
  if (rss_sum(victim) <= memory_ || victim == nullptr) return;
  ++oom_kills_;
  kill(*victim, Kill::kOom);
}

void Machine::kill(Placed& victim, Kill how) {
  killing_ = true;  // the victim's death changes memory too: no check until it is done
  if (victim.go && how == Kill::kOom) {
    victim.go->kill(goruntime::CrashReason::kNodeOomKill);
  } else if (victim.go) {
    victim.go->evict(eviction_replacement_);
  } else {
    victim.kill_cache(how, how == Kill::kEviction ? eviction_replacement_ : 0);
  }
  killing_ = false;
}

void Machine::eviction_sync() {
  // synchronize(): one pod at most per look; after an eviction, the next look comes once the
  // pod is cleaned up (waitForPodsCleanup's 1 s poll; the process's memory is freed at once).
  constexpr sim::Duration kCleanupPoll = sim::kSecond;
  sim::Duration next = eviction_period_;
  Placed* victim = nullptr;
  const std::int64_t available = memory_ - rss_sum(victim);
  if (available < eviction_threshold_ && victim != nullptr) {
    ++evictions_;
    kill(*victim, Kill::kEviction);
    next = kCleanupPoll;
  }
  sim_.call_at(sim_.now() + next, eviction_kind_, [this] { eviction_sync(); });
}

}  // namespace skysim::scenarios
