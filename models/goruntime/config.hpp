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
  std::int64_t stack_min_bytes = 2 * kKiB;      // stackMin = 2048 (fixedStack on Linux)
  // Go 1.19 starts new goroutines at startingStackSize: the average stack in use among the
  // goroutines the last GC scanned, plus the stack guard, rounded up to a power of two, never
  // below stackMin (runtime/stack.go gcComputeStartingStackSize, called at mark termination;
  // on by default: runtime1.go `debug.adaptivestackstart = 1`). false = always stackMin.
  bool adaptive_stack_start = true;
  std::int64_t stack_guard_bytes = 928;  // _StackGuard on linux/amd64 (runtime/stack.go)
  // assumption: stack in use by a goroutine parked in ordinary code (a dozen frames of
  // ~100 B): its stack stays at 2 KiB. A goroutine that uses more than its stack minus the
  // guard grows it by copying to the next power of two (copystack); models set their own.
  std::int64_t stack_used_bytes = 1 * kKiB;
  std::int64_t g0_stack_bytes = 16 * kKiB;      // allocm: malg(16384) per M on non-cgo Linux
  std::int64_t signal_stack_bytes = 32 * kKiB;  // mpreinit: gsignal = malg(32 * 1024) per M
  // What the kernel charges the memory cgroup per thread besides Go's own g0 and gsignal
  // stacks (kernel stack, task_struct, page tables). Measured on this machine: 565 more
  // threads for 31.8 MiB more charged, ~58 KiB per thread (docs/testbed.md, "Kills by the
  // memory limit"), of which Go's two stacks are 48 KiB: 10 KiB. Not in GOMEMLIMIT's count.
  std::int64_t os_thread_bytes = 10 * kKiB;
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

  // assumption: mark work is done in pieces of this much CPU between the worker's checks of
  // its preemption flag and of the remaining work (gcDrain checks after every few work units;
  // this is the model's granularity, not a Go constant).
  sim::Duration mark_chunk = 1 * sim::kMillisecond;

  // --- Stop-the-world (runtime/proc.go stopTheWorldWithSema, runtime/preempt.go)
  // The world stops once every P running Go code has stopped: each one's M receives the
  // preemption signal (SIGURG, preemptM) and must run on a core to take it (asyncPreempt,
  // then gcstopm); Ps in syscalls and idle Ps are taken at once. The stopping M sleeps 100 µs
  // at a time on sched.stopnote and re-sends the requests (preemptall) each time it wakes.
  // assumption: CPU an M spends from the signal to stopping its P (signal delivery, the
  // handler, asyncPreempt's register save, the scheduler path to gcstopm): ~5 µs.
  sim::Duration preempt_ack_cpu = 5 * sim::kMicrosecond;
  sim::Duration stw_retry = 100 * sim::kMicrosecond;  // notetsleep(&sched.stopnote, 100*1000)
  // assumption: CPU of one preemption request (a tgkill(2) per running P) in preemptall.
  sim::Duration preempt_signal_cpu = 1 * sim::kMicrosecond;
  // The work of the stopped world, done by the stopping M on a core (domain.md §3.3: "usually
  // < 100 µs, often ~10 µs" for the whole pause of an idle process).
  sim::Duration stw_base = 10 * sim::kMicrosecond;
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
