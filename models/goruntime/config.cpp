#include "models/goruntime/config.hpp"

#include <stdexcept>
#include <string>

namespace goruntime {

namespace {
void require(bool ok, const std::string& field, const std::string& why) {
  if (!ok) {
    throw std::invalid_argument("goruntime config: " + field + " " + why);
  }
}
}  // namespace

void GoConfig::validate() const {
  require(syscall_cpu_prologue >= 0 && syscall_cpu_prologue <= preempt_quantum,
          "syscall_cpu_prologue", "must be >= 0 and <= preempt_quantum");
  require(cores >= 1, "cores", "must be >= 1");
  require(time_slice > 0, "time_slice", "must be > 0");
  require(gomaxprocs >= 0, "gomaxprocs", "must be >= 0 (0 = cores)");
  require(sysmon_tick_min > 0, "sysmon_tick_min", "must be > 0");
  require(sysmon_tick_max >= sysmon_tick_min, "sysmon_tick_max", "must be >= sysmon_tick_min");
  require(sysmon_timer_slack >= 0, "sysmon_timer_slack", "must be >= 0");
  require(sysmon_idle_ticks_before_backoff >= 0, "sysmon_idle_ticks_before_backoff",
          "must be >= 0");
  require(syscall_retake_idle > 0, "syscall_retake_idle", "must be > 0");
  require(preempt_quantum > 0, "preempt_quantum", "must be > 0");
  require(max_threads >= 1, "max_threads", "must be >= 1");
  require(initial_threads >= 1, "initial_threads", "must be >= 1");
  require(initial_threads <= max_threads, "initial_threads", "must be <= max_threads");
  require(stack_min_bytes > 0, "stack_min_bytes", "must be > 0");
  require(stack_guard_bytes >= 0 && stack_guard_bytes < stack_min_bytes, "stack_guard_bytes",
          "must be >= 0 and < stack_min_bytes");
  require(stack_used_bytes >= 0 && stack_used_bytes <= kGiB, "stack_used_bytes",
          "must be in [0, 1 GiB] (maxstacksize)");
  require(g0_stack_bytes >= 0 && signal_stack_bytes >= 0 && os_thread_bytes >= 0, "thread memory",
          "sizes must be >= 0");
  require(runtime_base_bytes >= 0 && globals_bytes >= 0, "runtime_base_bytes/globals_bytes",
          "must be >= 0");
  require(gomemlimit_bytes >= 0, "gomemlimit_bytes", "must be >= 0 (0 = no limit)");
  require(min_heap_bytes > 0, "min_heap_bytes", "must be > 0");
  require(trigger_min_fraction > 0 && trigger_min_fraction <= 1, "trigger_min_fraction",
          "must be in (0, 1]");
  require(trigger_max_fraction >= trigger_min_fraction && trigger_max_fraction <= 1,
          "trigger_max_fraction", "must be in [trigger_min_fraction, 1]");
  require(gc_bg_utilization > 0 && gc_bg_utilization < 1, "gc_bg_utilization", "must be in (0, 1)");
  require(gc_cpu_limit > 0 && gc_cpu_limit <= 1, "gc_cpu_limit", "must be in (0, 1]");
  require(limiter_capacity_per_proc > 0, "limiter_capacity_per_proc", "must be > 0");
  require(mark_ns_per_byte >= 0, "mark_ns_per_byte", "must be >= 0");
  require(assist_min_distance_bytes > 0, "assist_min_distance_bytes", "must be > 0");
  require(assist_chunk > 0, "assist_chunk", "must be > 0");
  require(mark_chunk > 0, "mark_chunk", "must be > 0");
  require(stw_base >= 0 && stw_per_1k_goroutines >= 0 && preempt_ack_cpu >= 0 &&
              preempt_signal_cpu >= 0,
          "stw_base/stw_per_1k_goroutines/preempt_ack_cpu/preempt_signal_cpu", "must be >= 0");
  require(stw_retry > 0, "stw_retry", "must be > 0");
  require(container_memory_limit_bytes >= 0, "container_memory_limit_bytes",
          "must be >= 0 (0 = none)");
  require(restart_delay >= 0, "restart_delay", "must be >= 0");
  restart_policy.validate();
}

CoreSharing parse_core_sharing(std::string_view text) {
  if (text == "processor_sharing") return CoreSharing::kProcessorSharing;
  if (text == "run_to_completion") return CoreSharing::kRunToCompletion;
  if (text == "time_slice") return CoreSharing::kTimeSlice;
  if (text == "cfs") return CoreSharing::kCfs;
  if (text == "eevdf") return CoreSharing::kEevdf;
  throw std::invalid_argument(
      "unknown core sharing '" + std::string(text) +
      "' (expected processor_sharing, run_to_completion, time_slice, cfs or eevdf)");
}

const char* to_string(CoreSharing s) {
  switch (s) {
    case CoreSharing::kProcessorSharing: return "processor_sharing";
    case CoreSharing::kRunToCompletion: return "run_to_completion";
    case CoreSharing::kTimeSlice: return "time_slice";
    case CoreSharing::kCfs: return "cfs";
    case CoreSharing::kEevdf: return "eevdf";
  }
  return "?";
}

}  // namespace goruntime
