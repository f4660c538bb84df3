#pragma once
// Parameters of a simulated Go process. Every default names its source (domain.md §3 unless
// said otherwise) or says "assumption:" with the reasoning; docs/models/goruntime.md lists
// them all.
#include <cstdint>
#include <string>
#include <string_view>

#include "models/goruntime/restart_backoff.hpp"
#include "sim/time.hpp"

namespace goruntime {

inline constexpr std::int64_t kKiB = 1024;
inline constexpr std::int64_t kMiB = 1024 * kKiB;
inline constexpr std::int64_t kGiB = 1024 * kMiB;

// How the host's cores are shared among more runnable threads than cores (HostCpu).
enum class CoreSharing {
  kProcessorSharing,  // n runnable threads on C cores each run at min(1, C/n)
  kRunToCompletion,   // at most C run, each to the end of its work; the rest wait FIFO
  kTimeSlice,         // at most C run, each for one time slice, then behind the waiting ones
  kCfs,               // time slices, and a thread woken from sleep preempts (Linux CFS)
  kEevdf,             // time slices; the next thread is the eligible one with the earliest
                      // virtual deadline, a new one placed half a slice ahead (Linux EEVDF)
};
CoreSharing parse_core_sharing(std::string_view text);  // throws std::invalid_argument
const char* to_string(CoreSharing s);

struct GoConfig {
  std::string name = "go";  // names the process in errors and kernel event kinds

  // --- CPU and scheduler (domain.md §3.1, §3.2)
  int cores = 8;       // assumption: a mid-size container host; scenarios set the real value
  int gomaxprocs = 0;  // 0 = cores, Go's default (Go 1.25 also honours the cgroup CPU limit)
  // sysmon wakes every 20 µs, doubles its sleep after 50 idle ticks (~1 ms), up to 10 ms.
  sim::Duration sysmon_tick_min = 20 * sim::kMicrosecond;
  sim::Duration sysmon_tick_max = 10 * sim::kMillisecond;
  int sysmon_idle_ticks_before_backoff = 50;  // runtime/proc.go sysmon: `idle > 50`
  // Linux timer slack: each nanosleep may overrun by the thread's slack, 50 µs by default
  // (prctl(2) PR_SET_TIMERSLACK); measured, a 10-µs sleep lasts ~68 µs (openjdk JDK-8307766)
  // and nothing sleeps under ~55 µs (librdkafka #1450). So sysmon's "20 µs" is ~70 µs. 0 = exact.
  sim::Duration sysmon_timer_slack = 50 * sim::kMicrosecond;
  // runtime/proc.go sysmon: a tick that finds every P idle parks sysmon on sched.sysmonnote; the
  // next syscall (or the end of an STW) wakes it at its 20 µs sleep. false = a process whose
  // load never leaves every P idle at once (a model that samples its load sets this).
  bool sysmon_parks_when_idle = true;
  // retake() hands off a syscall's P even with no queued work once the syscall is 10 ms old.
  sim::Duration syscall_retake_idle = 10 * sim::kMillisecond;
  // forcePreemptNS: a goroutine running 10 ms is preempted (here: at slice ends).
  sim::Duration preempt_quantum = 10 * sim::kMillisecond;
  // The host's cores are shared by every runnable thread of the process (Linux CFS, equal
  // weights): Ms running Go code and Ms computing inside a syscall (syscall_cpu). With more
  // runnable threads than cores each runs at cores/n of a core (HostCpu). false = Ps are
  // the only CPU and syscalls never wait for a core (the model before this mechanism).
  bool cpu_contention = true;
  // Processor sharing: every runnable thread progresses at once (what Linux's scheduler
  // approaches with wake-up preemption). Run to completion: a thread keeps its core until
  // its work is done (a time slice longer than the work, no preemption). Real Linux lies
  // between — EEVDF's slice is ~3 ms, longer than a 2-ms port search, but a waking thread
  // may preempt — so the two bracket it. Time slices: round robin with `time_slice`, Linux's
  // EEVDF for threads of equal weight when a waking thread does not preempt the running one
  // before its slice ends (sched_feat RUN_TO_PARITY, on by default). CFS (Linux before 6.6):
  // the same slices, but a thread woken from sleep is placed half a scheduling period ahead
  // (GENTLE_FAIR_SLEEPERS) and preempts at once, while a new thread starts a slice behind
  // (START_DEBIT) — so an idle M that Go wakes runs at once and a new one waits its turn.
  CoreSharing core_sharing = CoreSharing::kProcessorSharing;
  // EEVDF's base slice: sysctl_sched_base_slice 0.75 ms × (1 + ilog2(min(CPUs, 8))) under the
  // default logarithmic tunable scaling = 3 ms on any host of 8 or more CPUs
  // (kernel/sched/fair.c, get_update_sysctl_factor). Used by CoreSharing::kTimeSlice only.
  sim::Duration time_slice = 3 * sim::kMillisecond;
  // Go code a goroutine runs on its P right before each syscall_cpu (the dial's net.Dialer,
  // socket(2), setsockopt(2) before bind(2)); it needs a core like any Go code. 0 = none.
  sim::Duration syscall_cpu_prologue = 0;
  std::int64_t max_threads = 10'000;  // sched.maxmcount; above it: "thread exhaustion"
  // assumption: m0 plus sysmon exist before any goroutine runs.
  int initial_threads = 2;

  // --- Memory (domain.md §3.1, §3.3)
  std::int64_t stack_min_bytes = 2 * kKiB;      // stackMin = 2048
  std::int64_t g0_stack_bytes = 16 * kKiB;      // malg(16384) per M on non-cgo Linux
  std::int64_t signal_stack_bytes = 32 * kKiB;  // gsignal stack per M (recalled in §3.1)
  // assumption: kernel stack (16 KiB on x86-64) + task_struct and page tables, rounded up.
  std::int64_t os_thread_bytes = 24 * kKiB;
  // assumption: binary text, globals and runtime metadata resident before the first alloc.
  std::int64_t runtime_base_bytes = 16 * kMiB;
  std::int64_t globals_bytes = 1 * kMiB;  // assumption: scanned globals, part of GC roots

  // --- GC pacer and limiter (domain.md §3.3)
  int gogc = 100;                          // < 0 means GOGC=off
  std::int64_t gomemlimit_bytes = 0;       // 0 = no limit (math.MaxInt64 in Go)
  std::int64_t min_heap_bytes = 4 * kMiB;  // heapMinimum, scaled by GOGC/100 as in Go
  // The trigger sits 70–95 % of the way from the marked heap to the goal (GC-NOTES2).
  double trigger_min_fraction = 0.70;
  double trigger_max_fraction = 0.95;
  double gc_bg_utilization = 0.25;                         // gcBackgroundUtilization
  double gc_cpu_limit = 0.5;                               // the limiter caps GC CPU at ~50 %
  sim::Duration limiter_capacity_per_proc = sim::kSecond;  // capacityPerProc = 1e9 ns
  // assumption: CPU cost of marking one byte of live heap or stack (~1 GB/s per core).
  double mark_ns_per_byte = 1.0;
  // assumption: smallest heap distance an assist ratio is computed over (Go clamps similarly).
  std::int64_t assist_min_distance_bytes = 64 * kKiB;
  // assumption: assists work in small units and re-check the limiter between them (Go scans
  // at least gcOverAssistWork = 64 KiB per assist, ~64 µs at 1 ns/byte).
  sim::Duration assist_chunk = 64 * sim::kMicrosecond;

  // --- Stop-the-world (domain.md §3.3: "usually < 100 µs, often ~10 µs"; no slope published)
  sim::Duration stw_base = 10 * sim::kMicrosecond;
  sim::Duration stw_per_thread = 500;  // assumption: 0.5 µs to signal and stop one M
  sim::Duration stw_per_1k_goroutines = 5 * sim::kMicrosecond;  // assumption: stack scan prep

  // --- Container (domain.md §1.4: limit value not found)
  std::int64_t container_memory_limit_bytes = 0;    // 0 = none; RSS above it is an OOM kill
  sim::Duration restart_delay = 30 * sim::kSecond;  // assumption; restart_policy kFixed only
  RestartPolicy restart_policy;  // fixed (restart_delay) or the kubelet's CrashLoopBackOff

  // Throws std::invalid_argument naming the offending field.
  void validate() const;
  int procs() const { return gomaxprocs > 0 ? gomaxprocs : cores; }
};

}  // namespace goruntime
