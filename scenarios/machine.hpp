#pragma once
// A machine that several services' processes share (`machines:` in a datacenter, `machine:` on
// a service), as a Kubernetes node holds the pods of several services: one kernel, so one
// socket table (the ephemeral port range, TIME_WAIT and the port rules count every process's
// sockets), and one set of cores that every process's runnable threads share (HostCpu). What
// each process keeps of its own: its Go runtime (GOMAXPROCS, its thread limit, its GOMEMLIMIT)
// and its container's memory limit; a process that dies frees its own threads and sockets
// (its TIME_WAIT stays the machine's), and the others go on.
//
// Not modelled: the node's own memory (a container's limit is its own, as the cgroup's), and
// placement (a service's host i runs on the machine's i).
#include <cstdint>
#include <string>
#include <vector>

#include "models/goruntime/host_cpu.hpp"
#include "models/net/socket_table.hpp"
#include "sim/metrics.hpp"
#include "sim/params.hpp"

namespace skysim::scenarios {

// The parameters a machine declares; a service on a machine may not set them itself. The specs
// are the go-service's own (kind_go_service.cpp), so both read the same.
std::vector<sim::ParamSpec> machine_params();
// Their kernel part, as the socket table takes it; validate() throws naming the field.
net::NetSysctl machine_net_sysctl(const sim::ParamValues& p);

class Machine {
 public:
  // Registers the machine's own series, labelled {machine=PATH}: machine.time_wait (every
  // process's sockets in TIME_WAIT), machine.runnable_threads (threads wanting a core) and
  // machine.processes (placed on it).
  Machine(sim::Simulation& sim, sim::MetricsRegistry& metrics, std::string path,
          const sim::ParamValues& params);
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  const std::string& path() const { return path_; }
  net::NetNamespace& ns() { return ns_; }
  goruntime::HostCpu& cpu() { return cpu_; }
  // The first socket owner id of the next process placed here: each process's descriptors
  // are its own (owner = base + incarnation), so one's death closes only its sockets.
  net::OwnerId owner_base();

 private:
  std::string path_;
  net::NetNamespace ns_;
  goruntime::HostCpu cpu_;
  std::uint32_t processes_ = 0;
};

}  // namespace skysim::scenarios
