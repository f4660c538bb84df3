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
           params.duration("time_slice")) {
  cpu_.set_actor(sim.new_actor_id());
  const sim::Labels at = {{"machine", path_}};
  metrics.gauge_fn("machine.time_wait", at, [this] { return double(ns_.time_wait_count()); });
  metrics.gauge_fn("machine.runnable_threads", at, [this] { return double(cpu_.runnable()); });
  metrics.gauge_fn("machine.processes", at, [this] { return double(processes_); });
}

net::OwnerId Machine::owner_base() {
  ++processes_;
  if (processes_ >= (std::uint32_t{0xFFFFFFFF} / kOwnerStride)) {
    throw std::length_error("machine " + path_ + ": too many processes");
  }
  return processes_ * kOwnerStride;
}

}  // namespace skysim::scenarios
