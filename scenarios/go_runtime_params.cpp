#include "scenarios/go_runtime_params.hpp"

#include "models/goruntime/restart_backoff.hpp"
#include "scenarios/param_builder.hpp"

namespace skysim::scenarios {

using sim::ParamType;

std::vector<sim::ParamSpec> go_runtime_params(std::string_view stack_used_default) {
  return {
      param("max_threads", ParamType::Count, "threads", "10000",
            "runtime/debug.SetMaxThreads; above it the process dies of thread exhaustion "
            "(domain.md §3.2). Not scaled",
            1, 1e7),
      param("gogc", ParamType::Int, "%", "100", "GOGC; -1 = off", -1, 100000),
      param("sysmon_parks", ParamType::Bool, "", "true",
            "sysmon parks when it finds every P idle and the next syscall wakes it at its 20 us "
            "sleep (Go's runtime); false = the real load never leaves every P idle at once, so "
            "sysmon stays backed off (for a scenario whose users are a sample of the load)"),
      param("cpu_contention", ParamType::Bool, "", "true",
            "the host's cores are shared by every runnable thread (Linux CFS): Ms running Go "
            "code and Ms searching the port range in bind(2), so with more of them than cores "
            "each runs slower; false = port searches never wait for a core"),
      param("core_sharing", ParamType::Enum, "", "processor_sharing",
            "how more runnable threads than cores share them: processor_sharing (all progress "
            "at once, as Linux's scheduler approaches with wake-up preemption), "
            "run_to_completion (a thread keeps its core until its work is done, the rest wait "
            "in order), time_slice (round robin with `time_slice`: Linux EEVDF when a waking "
            "thread does not preempt before the running one's slice ends) or cfs (time slices, "
            "and an idle M woken from sleep preempts at once while a new thread queues: Linux "
            "CFS's placement) or eevdf (time slices; a core that comes free goes to the "
            "eligible thread with the earliest virtual deadline, a new thread's half a slice "
            "away: Linux 6.6+)",
            std::nullopt, std::nullopt,
            {"processor_sharing", "run_to_completion", "time_slice", "cfs", "eevdf"}),
      param("time_slice", ParamType::Duration, "", "3ms",
            "core_sharing time_slice, cfs and eevdf: how long a thread keeps a core per turn "
            "(Linux EEVDF base slice, CFS minimum granularity: 0.75 ms x (1 + ilog2(min(CPUs, "
            "8))) = 3 ms on 8+ CPUs, kernel/sched/fair.c)",
            1, 1e9),
      param("dial_go_cpu", ParamType::Duration, "", "4us",
            "Go CPU a goroutine spends on its P before a dial's port search (net.Dialer, "
            "socket(2), setsockopt(2)); measured: a failed Go 1.19 dial costs 4 us of CPU "
            "beyond its bind(2), all charged before it (bench/port-search/measure.sh); 0 = none",
            0, 1e7),
      param("port_scan_cost", ParamType::Duration, "", "134ns",
            "kernel time per port examined by bind(ip, 0)/connect()'s port search (Linux "
            "inet_csk_find_open_port); measured: a failed bind over the 28,232-port default "
            "range, all in TIME_WAIT, took 3.8 ms on Linux 6.18 (bench/port-search/measure.sh). "
            "A search longer than sysmon's 20 us tick is a syscall the goroutine's M spends on "
            "a core, and its P may be handed off; the dataplane kind divides it by `scale`, so "
            "a failed search keeps its full-size time as the range shrinks",
            0, 1e9),
      param("restart_delay", ParamType::Duration, "", "30s",
            "restart_policy fixed: time from a crash (OOM kill, thread exhaustion, timeline "
            "crash) to the restarted process (assumption)",
            0, 1e15),
      param("restart_policy", ParamType::Enum, "", "fixed",
            "fixed (restart_delay after every crash) or crash_loop_backoff (the kubelet's: the "
            "first crash restarts at once, then 10 s doubling to 5 min, reset once the "
            "container ran 2 x the max since its last start; pkg/kubelet doBackOff, client-go "
            "flowcontrol)",
            std::nullopt, std::nullopt, {"fixed", "crash_loop_backoff"}),
      param("restart_backoff_initial", ParamType::Duration, "", "10s",
            "crash_loop_backoff: first back-off (kubelet backOffPeriod)", 1, 1e15),
      param("restart_backoff_max", ParamType::Duration, "", "300s",
            "crash_loop_backoff: cap (kubelet MaxContainerBackOff); the reset window is twice it",
            1, 1e15),
      param("preempt_ack_cpu", ParamType::Duration, "", "5us",
            "CPU an M running Go code needs on a core to take a stop-the-world's preemption "
            "signal and stop its P (assumption: signal delivery, asyncPreempt, gcstopm); the "
            "world stops when every running P's M has had it, so under CPU starvation the "
            "pause waits for cores",
            0, 1e9),
      param("stw_retry", ParamType::Duration, "", "100us",
            "the stopping M re-sends the preemption requests this often while Ps are still "
            "running (runtime/proc.go stopTheWorldWithSema: notetsleep 100 us, then "
            "preemptall)",
            1, 1e9),
      param("goroutine_stack_used", ParamType::Size, "bytes", std::string(stack_used_default),
            "stack a goroutine uses while parked, what the GC's stack scan sees (assumption: "
            "the dataplane's fetchPost ~15 frames of ~170 B = 2560 B, with the 928-B guard a "
            "4 KiB stack; a go-service's goroutines a dozen frames of ~100 B = 1 KiB)",
            0, 1e9),
      param("adaptive_stack_start", ParamType::Bool, "", "true",
            "Go 1.19 starts goroutines at the average stack in use at the last GC plus the "
            "guard, rounded up to a power of two (runtime/stack.go gcComputeStartingStackSize; "
            "on by default); false = 2 KiB and growth by copying"),
      param("thread_memory", ParamType::Size, "bytes", "58KiB",
            "memory charged to the container per OS thread: measured ~58 KiB on this machine "
            "(docs/testbed.md, 565 threads for 31.8 MiB); Go's own g0 (16 KiB) and signal "
            "(32 KiB) stacks count toward GOMEMLIMIT, the rest (kernel stack, task struct) "
            "only toward the container limit. Not scaled",
            48 * 1024, 1e9),
  };
}

void apply_go_runtime_params(const sim::ParamValues& v, goruntime::GoConfig& g) {
  g.max_threads = v.count("max_threads");
  g.gogc = static_cast<int>(v.integer("gogc"));
  g.sysmon_parks_when_idle = v.flag("sysmon_parks");
  g.cpu_contention = v.flag("cpu_contention");
  g.core_sharing = goruntime::parse_core_sharing(v.choice("core_sharing"));
  g.time_slice = v.duration("time_slice");
  g.syscall_cpu_prologue = v.duration("dial_go_cpu");
  g.restart_delay = v.duration("restart_delay");
  g.restart_policy.kind = goruntime::parse_restart_policy(v.choice("restart_policy"));
  g.restart_policy.backoff_initial = v.duration("restart_backoff_initial");
  g.restart_policy.backoff_max = v.duration("restart_backoff_max");
  g.preempt_ack_cpu = v.duration("preempt_ack_cpu");
  g.stw_retry = v.duration("stw_retry");
  g.stack_used_bytes = v.size_bytes("goroutine_stack_used");
  g.adaptive_stack_start = v.flag("adaptive_stack_start");
  g.os_thread_bytes = v.size_bytes("thread_memory") - g.g0_stack_bytes - g.signal_stack_bytes;
}

sim::Duration port_scan_cost(const sim::ParamValues& v) { return v.duration("port_scan_cost"); }

}  // namespace skysim::scenarios
