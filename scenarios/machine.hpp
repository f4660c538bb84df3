#pragma once
// A machine that several services' processes share (`machines:` in a datacenter, `machine:` on
// a service), as a Kubernetes node holds the pods of several services: one kernel, so one
// socket table (the ephemeral port range, TIME_WAIT and the port rules count every process's
// sockets), and one set of cores that every process's runnable threads share (HostCpu). What
// each process keeps of its own: its Go runtime (GOMAXPROCS, its thread limit, its GOMEMLIMIT)
// and its container's memory limit; a process that dies frees its own threads and sockets
// (its TIME_WAIT stays the machine's), and the others go on.
//
// The machine's memory (`memory`, 0 = not modelled) is what its processes' RSS together may
// use. Past it the kernel's OOM killer kills the process with the most memory, which need not
// be the one that allocated (mm/oom_kill.c: oom_badness is the task's RSS, swap and page
// tables; every process here has the same oom_score_adj, as pods of one QoS class). A
// container's own memory_limit is its cgroup's, checked first.
//
// A memcached server may run there too (a sidecar on its service's node): its worker threads
// share the cores (memcached::Server::run_on), and its items' memory counts in the machine's,
// so the OOM killer may pick it (its service restarts it after its restart_delay).
//
// Not modelled: the kubelet's eviction (memory.available below its threshold, acted on every
// housekeeping interval, pods over their requests first), swap, and placement (a service's
// host i runs on the machine's i).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/goruntime/go_process.hpp"
#include "models/goruntime/host_cpu.hpp"
#include "models/memcached/server.hpp"
#include "models/net/socket_table.hpp"
#include "sim/metrics.hpp"
#include "sim/params.hpp"

namespace skysim::scenarios {

// The parameters a machine declares; a service on a machine may not set them itself. The specs
// are the go-service's own (kind_go_service.cpp), so both read the same, and `memory`.
std::vector<sim::ParamSpec> machine_params();
// Their kernel part, as the socket table takes it; validate() throws naming the field.
net::NetSysctl machine_net_sysctl(const sim::ParamValues& p);

class Machine {
 public:
  // Registers the machine's own series, labelled {machine=PATH}: machine.time_wait (every
  // process's sockets in TIME_WAIT), machine.runnable_threads (threads wanting a core),
  // machine.rss_bytes (the live processes' RSS together), machine.oom_kills (the kernel's) and
  // machine.processes (placed on it).
  Machine(sim::Simulation& sim, sim::MetricsRegistry& metrics, std::string path,
          const sim::ParamValues& params);
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  const std::string& path() const { return path_; }
  net::NetNamespace& ns() { return ns_; }
  goruntime::HostCpu& cpu() { return cpu_; }
  // Places a process here: its memory joins the machine's, and the result is its first socket
  // owner id (each process's descriptors are its own, owner = base + incarnation, so one's
  // death closes only its sockets).
  net::OwnerId place(goruntime::GoProcess& process);
  // Places a memcached server here: its worker threads take turns on the machine's cores, and
  // its items' memory joins the machine's; `oom_kill` is what the kernel's OOM killer does to it.
  void place(memcached::Server& server, std::function<void()> oom_kill);
  // A timeline `set` of one of its settable parameters (tcp_tw_reuse: `sysctl -w` on the
  // node); the loader lets no other through.
  void set(std::string_view name, const sim::ParamValue& value);

 private:
  std::string path_;
  net::NetNamespace ns_;
  goruntime::HostCpu cpu_;
  std::int64_t memory_;  // bytes; 0 = not modelled
  // A process placed here: a Go process or a memcached server.
  struct Placed {
    goruntime::GoProcess* go = nullptr;
    memcached::Server* cache = nullptr;
    std::function<void()> kill_cache;
    bool alive() const { return go ? go->alive() : !cache->down(); }
    std::int64_t rss() const {
      return go ? go->rss_bytes() : static_cast<std::int64_t>(cache->rss_bytes());
    }
  };
  std::vector<Placed> placed_;  // in placement order (the OOM killer's tie-break)
  std::uint32_t go_processes_ = 0;
  std::uint64_t oom_kills_ = 0;
  bool killing_ = false;  // inside the OOM killer (a victim's death changes memory too)
  // The processes' RSS together against the machine's memory; past it, the OOM kill.
  void check_memory();
};

}  // namespace skysim::scenarios
