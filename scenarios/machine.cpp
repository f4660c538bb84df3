#include "scenarios/machine.hpp"

#include <stdexcept>

#include "models/goruntime/config.hpp"

namespace skysim::scenarios {

namespace {
// A process's incarnations below 2^20 (a restart every second for twelve days), so bases
// 2^20 apart never meet.
constexpr std::uint32_t kOwnerStride = std::uint32_t{1} << 20;
}  // namespace

net::NetSysctl machine_net_sysctl(const sim::ParamValues& p) {
  net::NetSysctl n;
  n.port_lo = static_cast<std::uint16_t>(p.count("port_range_low"));
  n.port_hi = static_cast<std::uint16_t>(p.count("port_range_high"));
  n.time_wait = p.duration("time_wait");
  n.tw_reuse = static_cast<int>(p.integer("tcp_tw_reuse"));
  n.validate();
  return n;
}

Machine::Machine(sim::Simulation& sim, sim::MetricsRegistry& metrics, std::string path,
                 const sim::ParamValues& params)
    : path_(std::move(path)),
      ns_(sim, machine_net_sysctl(params), path_ + "/netns"),
      cpu_(sim, static_cast<int>(params.count("cores")),
           goruntime::parse_core_sharing(params.choice("core_sharing")),
           params.duration("time_slice")),
      memory_(params.size_bytes("memory")) {
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
}

net::OwnerId Machine::place(goruntime::GoProcess& process) {
  placed_.push_back({.go = &process, .cache = nullptr, .kill_cache = {}});
  const std::uint32_t n = ++go_processes_;
  if (n >= std::uint32_t{0xFFFFFFFF} / kOwnerStride) {
    throw std::length_error("machine " + path_ + ": too many processes");
  }
  if (memory_ > 0) process.set_memory_watch([this] { check_memory(); });
  return n * kOwnerStride;
}

void Machine::place(memcached::Server& server, std::function<void()> oom_kill) {
  server.run_on(cpu_);
  placed_.push_back({.go = nullptr, .cache = &server, .kill_cache = std::move(oom_kill)});
  if (memory_ > 0) server.set_memory_watch([this] { check_memory(); });
}

void Machine::set(std::string_view name, const sim::ParamValue& value) {
  if (name == "tcp_tw_reuse") {
    ns_.set_tw_reuse(static_cast<int>(value.integer));
    return;
  }
  throw std::logic_error("machine " + path_ + ": " + std::string(name) +
                         " cannot change during a run");
}

void Machine::check_memory() {
  if (killing_) return;
  std::int64_t sum = 0;
  std::int64_t most = -1;
  Placed* victim = nullptr;
  for (Placed& p : placed_) {
    if (!p.alive()) continue;
    const std::int64_t rss = p.rss();
    sum += rss;
    // The most memory dies; between equals, the first placed (the kernel's task-list order).
    if (rss > most) {
      most = rss;
      victim = &p;
    }
  }
  if (sum <= memory_ || victim == nullptr) return;
  ++oom_kills_;
  killing_ = true;
  if (victim->go) {
    victim->go->kill(goruntime::CrashReason::kNodeOomKill);
  } else {
    victim->kill_cache();
  }
  killing_ = false;
}

}  // namespace skysim::scenarios
