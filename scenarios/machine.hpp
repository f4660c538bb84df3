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
// Before the kernel runs out, the kubelet's eviction manager may act (node-pressure eviction,
// kubernetes.io "Node-pressure Eviction"; pkg/kubelet/eviction): every `eviction_period` (its
// evictionMonitoringPeriod, 10 s) it compares memory.available = memory − the processes' RSS
// with its hard threshold (`eviction_memory_available`, 100Mi by default on Linux) and, under
// it, evicts one pod — the one using the most memory, as it ranks pods with no requests and one
// priority — at once (hard threshold: no grace period), then looks again when the pod is
// cleaned up (its 1 s poll) instead of a period later. The evicted pod's replacement (its
// Deployment's new pod, no CrashLoopBackOff) runs here `eviction_replacement` later. Memory that
// grows by more than the threshold within one period reaches the OOM killer first.
//
// Not modelled: pods' requests and priorities (every process is ranked by its usage alone),
// cAdvisor's stats lagging the kernel's (up to one housekeeping, ~10 s), the scheduler keeping
// BestEffort pods off a node under MemoryPressure, swap, and placement (a service's host i runs
// on the machine's i).
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
// Their kernel part, as the socket table takes it at `scale` (the port range's length shrinks
// from its low end: PortRangeSysctl); validate() throws naming the field.
net::NetSysctl machine_net_sysctl(const sim::ParamValues& p, double scale);

// net.ipv4.ip_local_port_range as the scenario writes it (full size) and as the simulated
// kernel has it: at `scale` the range keeps its low end and scale × its length (28,232 ports
// from 32768 are 1,412 from 32768 at 0.05), as the dataplane kind's. The pair written is kept,
// so a `sysctl -w` of one end during a run scales the range the two ends make.
class PortRangeSysctl {
 public:
  PortRangeSysctl(const sim::ParamValues& p, double scale);
  std::uint16_t lo() const { return written_lo_; }
  std::uint16_t hi() const;  // simulated
  // A timeline's `port_range_low` or `port_range_high` on the socket table: the other end as
  // written kept; an empty range throws, naming the value.
  void set(net::NetNamespace& ns, std::string_view name, const sim::ParamValue& value);

 private:
  std::uint16_t written_lo_;
  std::uint16_t written_hi_;
  double scale_;
};

class Machine {
 public:
  // Registers the machine's own series, labelled {machine=PATH}: machine.time_wait (every
  // process's sockets in TIME_WAIT), machine.runnable_threads (threads wanting a core),
  // machine.rss_bytes (the live processes' RSS together), machine.oom_kills (the kernel's) and
  // machine.processes (placed on it).
  // `params` as the machine spec has them (full size), scaled here by `scale`.
  Machine(sim::Simulation& sim, sim::MetricsRegistry& metrics, std::string path,
          const sim::ParamValues& params, double scale = 1.0);
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  const std::string& path() const { return path_; }
  net::NetNamespace& ns() { return ns_; }
  goruntime::HostCpu& cpu() { return cpu_; }
  // Places a process here: its memory joins the machine's, and the result is its first socket
  // owner id (each process's descriptors are its own, owner = base + incarnation, so one's
  // death closes only its sockets).
  net::OwnerId place(goruntime::GoProcess& process);
  // How a placed process other than a Go process is killed: by the kernel's OOM killer (its
  // container restarts in its pod), or evicted (its replacement pod runs `replaced_after` later).
  enum class Kill { kOom, kEviction };
  using KillFn = std::function<void(Kill, sim::Duration replaced_after)>;
  // Places a memcached server here: its worker threads take turns on the machine's cores, and
  // its items' memory joins the machine's; `kill` is what the OOM killer or the kubelet does.
  void place(memcached::Server& server, KillFn kill);
  // Places a process pinned to `cores` of the machine's cores (a Scylla node's shards:
  // Seastar's --cpuset, the kubelet's static CPU manager's exclusive cores), taken out of the
  // pool every other process shares, and holding `memory` bytes while `alive()` (Seastar
  // allocates its --memory at start). Before any other process is placed here (throws
  // otherwise: the others' GOMAXPROCS is the shared pool they start on). Call
  // memory_changed() when it comes back.
  void place_pinned(std::string what, int cores, std::int64_t memory, std::function<bool()> alive,
                    KillFn kill);
  // A placed process's memory changed outside its own watch (a pinned one restarted).
  void memory_changed() { check_memory(); }
  // The cores every unpinned process shares.
  int shared_cores() const { return cpu_.cores(); }
  // A timeline `set` of one of its settable parameters (tcp_tw_reuse: `sysctl -w` on the
  // node); the loader lets no other through.
  void set(std::string_view name, const sim::ParamValue& value);

 private:
  Machine(sim::Simulation& sim, sim::MetricsRegistry& metrics, std::string path,
          const sim::ParamValues& written, const sim::ParamValues& params, double scale);
  sim::Simulation& sim_;
  std::string path_;
  PortRangeSysctl port_range_;
  net::NetNamespace ns_;
  goruntime::HostCpu cpu_;
  std::int64_t memory_;  // bytes; 0 = not modelled
  std::int64_t eviction_threshold_;  // memory.available below it is pressure; 0 = no eviction
  sim::Duration eviction_period_;
  sim::Duration eviction_replacement_;
  sim::Kind eviction_kind_;
  std::uint64_t evictions_ = 0;
  // A process placed here: a Go process or a memcached server.
  struct Placed {
    goruntime::GoProcess* go = nullptr;
    memcached::Server* cache = nullptr;
    KillFn kill_cache;  // a memcached's, or a pinned process's
    std::function<bool()> pinned_alive;  // a pinned process: its fixed memory while alive
    std::int64_t pinned_memory = 0;
    bool alive() const { return go ? go->alive() : cache ? !cache->down() : pinned_alive(); }
    std::int64_t rss() const {
      if (go) return go->rss_bytes();
      return cache ? static_cast<std::int64_t>(cache->rss_bytes()) : pinned_memory;
    }
  };
  std::vector<Placed> placed_;  // in placement order (the OOM killer's tie-break)
  std::uint32_t go_processes_ = 0;
  std::uint64_t oom_kills_ = 0;
  bool killing_ = false;  // inside the OOM killer (a victim's death changes memory too)
  // The processes' RSS together against the machine's memory; past it, the OOM kill.
  void check_memory();
  // The live processes' RSS together, and the one with the most (the first placed between
  // equals: the kernel's task-list order, and the kubelet's stable sort), or null.
  std::int64_t rss_sum(Placed*& largest);
  // The kubelet's eviction manager's look at memory.available, and the next one.
  void eviction_sync();
  // The OOM killer's or the kubelet's kill of a placed process.
  void kill(Placed& victim, Kill how);
};

}  // namespace skysim::scenarios
