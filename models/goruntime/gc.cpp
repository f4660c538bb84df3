// The GC half of GoProcess: pacer (heap goal and trigger), concurrent mark with dedicated
// workers and assists, the two stop-the-world phases, and the CPU limiter (domain.md §3.3).
// The GC's threads run on the host's cores like every other thread (HostCpu): a mark worker
// marks only while its M has a core, and stopping the world waits for each P running Go code
// to take the preemption request on a core (runtime/proc.go stopTheWorldWithSema,
// runtime/preempt.go, runtime/mgc.go gcStart and gcMarkDone).
#include <algorithm>
#include <cmath>
#include <limits>

#include "models/goruntime/go_process.hpp"

namespace goruntime {

namespace {
constexpr std::int64_t kNoGoal = std::numeric_limits<std::int64_t>::max();
}

std::int64_t GoProcess::heap_goal_bytes() const {
  std::int64_t goal = kNoGoal;
  // Roots: the stacks as the last scan saw them in use (gcController.lastStackScan) and globals.
  double roots = static_cast<double>((alive_ ? stack_used_sum_ : 0) + cfg_.globals_bytes);
  if (cfg_.gogc >= 0) {
    // goal = live + (live + roots) * GOGC/100, where "live" is what the last cycle marked.
    double g = static_cast<double>(heap_marked_) +
               (static_cast<double>(heap_marked_) + roots) * cfg_.gogc / 100.0;
    double floor = static_cast<double>(cfg_.min_heap_bytes) * cfg_.gogc / 100.0;
    goal = static_cast<std::int64_t>(std::max(g, floor));
  }
  if (cfg_.gomemlimit_bytes > 0) {
    // The memory limit bounds what the runtime itself maps (heap, goroutine stacks, each M's
    // g0 and signal stacks, runtime metadata): that comes off the heap's share. The kernel's
    // own per-thread memory is outside Go's accounting (runtime/metrics /memory/classes).
    goal = std::min(goal, cfg_.gomemlimit_bytes - runtime_nonheap_bytes());
  }
  return std::max(goal, heap_marked_);
}

// The pacer starts marking early enough that the heap reaches its goal as marking ends: the
// runway is what the last mark phase saw allocated, bounded to 70–95 % of the way from the
// marked heap to the goal (Go 1.18+ derives the runway from its cons/mark estimate).
std::int64_t GoProcess::trigger_bytes() const {
  std::int64_t goal = heap_goal_bytes();
  if (goal == kNoGoal) {
    return kNoGoal;
  }
  auto way = static_cast<double>(goal - heap_marked_);
  auto lo = heap_marked_ + static_cast<std::int64_t>(cfg_.trigger_min_fraction * way);
  auto hi = heap_marked_ + static_cast<std::int64_t>(cfg_.trigger_max_fraction * way);
  std::int64_t t = last_mark_alloc_ >= 0 ? goal - last_mark_alloc_ : lo;
  return std::clamp(t, lo, hi);
}

void GoProcess::maybe_start_gc() {
  if (alive_ && phase_ == GcPhase::kOff && heap_alloc_ >= trigger_bytes()) {
    begin_stw(GcPhase::kSweepTermination);
  }
}

double GoProcess::gc_cpu_fraction() {
  gc_advance();
  sim::Duration up = sim_.now() - started_at_;
  if (up <= 0) {
    return 0.0;
  }
  return gc_cpu_total_ns_ / (static_cast<double>(procs_) * static_cast<double>(up));
}

sim::Duration GoProcess::gc_cpu_ns() {
  gc_advance();
  return static_cast<sim::Duration>(gc_cpu_total_ns_);
}

void GoProcess::account_gc(double gc_ns) { gc_cpu_total_ns_ += gc_ns; }

// Go charges the GC with its workers' time on their Ps (dedicatedMarkTime, fractional time),
// whether or not their Ms had a core meanwhile; charged as it passes, so the limiter never
// mistakes a worker's P for a mutator's. Then the limiter is brought up to now.
void GoProcess::gc_advance() {
  const sim::Time now = sim_.now();
  if (phase_ == GcPhase::kMark && now > gc_updated_at_) {
    account_gc((static_cast<double>(ps_gc_) + fractional_util_) *
               static_cast<double>(now - gc_updated_at_));
  }
  gc_updated_at_ = now;
  update_limiter();
}

// gcCPULimiter: a leaky bucket of GOMAXPROCS × 1 s that fills while GC uses more than its
// share of CPU; when full, assists stop and the heap may overshoot its goal.
void GoProcess::update_limiter() {
  sim::Time now = sim_.now();
  if (now <= limiter_updated_at_) {
    return;
  }
  double total = static_cast<double>(procs_) * static_cast<double>(now - limiter_updated_at_);
  // Assists, mark chunks and STW are charged when they end, so one interval may carry more GC
  // time than its own length; the bucket's clamp absorbs that, no GC time is dropped.
  double gc = gc_cpu_total_ns_ - gc_cpu_at_limiter_update_;
  double mutator = std::max(0.0, total - gc);
  double l = cfg_.gc_cpu_limit;
  // Zero change at exactly l of the CPU; scaled so that l = 0.5 gives Go's (gc - mutator).
  double change = (gc * (1.0 - l) - mutator * l) * 2.0;
  double capacity =
      static_cast<double>(procs_) * static_cast<double>(cfg_.limiter_capacity_per_proc);
  limiter_fill_ns_ = std::clamp(limiter_fill_ns_ + change, 0.0, capacity);
  limiter_enabled_ = limiter_fill_ns_ >= capacity;
  limiter_updated_at_ = now;
  gc_cpu_at_limiter_update_ = gc_cpu_total_ns_;
}

void GoProcess::spawn_gc(sim::Process p) {
  std::erase_if(gc_procs_, [](const sim::ProcessHandle& h) { return h.done(); });
  gc_procs_.push_back(sim_.spawn(std::move(p), kind_gc_));
}

// stopTheWorldWithSema: no P is handed out from now on (gcwaiting); idle Ps and Ps in syscalls
// are taken at once; each P running Go code gets a preemption request and stops when its M has
// taken it on a core — or earlier, if its goroutine gives the P up (a slice ends, a syscall).
// `by_worker`: a mark worker stops the world from its own P (gcMarkDone), which needs no request.
void GoProcess::begin_stw(GcPhase phase, bool by_worker) {
  gc_advance();
  std::int64_t to_stop = ps_running_;
  if (phase == GcPhase::kMarkTermination) {
    // The other dedicated workers drain on their Ps until they see the request.
    to_stop += std::max<std::int64_t>(0, ps_gc_ - (by_worker ? 1 : 0));
    p_goes_idle(ps_gc_);
    m_idle_ += ps_gc_;
    ps_gc_ = 0;
    mark_last_ = sim_.now() - mark_began_;
    ++mark_id_;  // the workers of this mark stop at their next check
  }
  trace_gc_phase(phase);
  phase_ = phase;
  stw_ = true;
  stw_began_ = sim_.now();
  ++stw_id_;
  stopping_ = true;
  acks_left_ = to_stop;
  waited_ = to_stop > 0;
  // An M on a core takes the signal at once; one waiting for a core takes it when it gets one.
  // Under processor sharing every runnable thread is "on a core" at c/n speed, so only a
  // background thread (one that found a core free) runs its request at full speed.
  const bool sliced = cfg_.core_sharing != CoreSharing::kProcessorSharing;
  std::int64_t on_a_core = 0;
  go_slices_.for_each([&](GoSlice& g) {
    if (g.job == nullptr || (sliced && g.job->running)) ++on_a_core;
  });
  on_a_core = std::min(on_a_core, ps_running_);
  for (std::int64_t i = 0; i < to_stop; ++i) {
    spawn_gc(preempt_ack(incarnation_, stw_id_, i < on_a_core));
  }
  if (to_stop > 0) spawn_gc(stw_retries(incarnation_, stw_id_));
  maybe_world_stopped();
}

// preemptM's signal reaches an M that runs Go code; it stops its P once it runs on a core.
sim::Process GoProcess::preempt_ack(std::uint64_t inc, std::uint64_t stw, bool on_a_core) {
  if (on_a_core) {
    co_await sim::sleep(cfg_.preempt_ack_cpu);  // on the core its Go code already holds
  } else {
    co_await on_core(cfg_.preempt_ack_cpu, inc);
  }
  if (inc != incarnation_ || !alive_ || stw != stw_id_ || !stopping_) co_return;
  if (on_a_core) {
    // gcstopm: the M sleeps and its core is free for the world's other threads.
    GoSlice* mine = nullptr;
    go_slices_.for_each([&](GoSlice& g) {
      if (mine == nullptr && g.counted && !g.parked) mine = &g;
    });
    if (mine != nullptr) {
      mine->parked = true;
      add_background(-1);
    }
  }
  --acks_left_;
  maybe_world_stopped();
}

// The stopping M sleeps on sched.stopnote 100 µs at a time; at each timeout it sends the
// requests again (preemptall), which takes it a core.
sim::Process GoProcess::stw_retries(std::uint64_t inc, std::uint64_t stw) {
  while (true) {
    co_await sim::sleep(cfg_.stw_retry);
    if (inc != incarnation_ || !alive_ || stw != stw_id_ || !stopping_) co_return;
    co_await on_core(cfg_.preempt_signal_cpu * acks_left_, inc, HostCpu::Arrival::kWoken);
  }
}

// Every P is stopped when every request is taken or no P runs Go code any more (the shortcut
// counts goroutines' Ps only: a dedicated worker still draining is not waited for then).
void GoProcess::maybe_world_stopped() {
  if (!stopping_ || (acks_left_ > 0 && ps_running_ > 0)) return;
  stopping_ = false;
  spawn_gc(stw_work(incarnation_, stw_id_, waited_));
}

// The stopped world's own work, by the stopping M; woken by the last P to stop (notewakeup) it
// first needs a core again.
sim::Process GoProcess::stw_work(std::uint64_t inc, std::uint64_t stw, bool woken) {
  const sim::Duration work = cfg_.stw_base + cfg_.stw_per_1k_goroutines * goroutines_ / 1000;
  co_await on_core(work, inc, woken ? HostCpu::Arrival::kWoken : HostCpu::Arrival::kQueued);
  if (inc != incarnation_ || !alive_ || stw != stw_id_) co_return;
  end_stw();
}

// startTheWorldWithSema. The pause is from the stop request to here, as Go measures it
// (work.pauseStart is taken before stopTheWorldWithSema).
void GoProcess::end_stw() {
  gc_advance();
  const sim::Duration pause = sim_.now() - stw_began_;
  stw_last_ = pause;
  stw_peak_ = std::max(stw_peak_, pause);
  stw_hist_.record(pause);
  account_gc(static_cast<double>(pause) * procs_);  // the limiter counts STW for every P
  stw_ = false;
  // The stopped Ms whose slices are not over run again.
  go_slices_.for_each([this](GoSlice& g) {
    if (g.parked) {
      g.parked = false;
      add_background(1);
    }
  });
  sysmon_after_stw(stw_began_);
  if (phase_ == GcPhase::kSweepTermination) {
    start_mark();
    dispatch();
  } else {
    finish_mark();
    dispatch();
    maybe_start_gc();
  }
}

void GoProcess::start_mark() {
  trace_gc_phase(GcPhase::kMark);
  phase_ = GcPhase::kMark;
  ++mark_id_;
  mark_began_ = sim_.now();
  alloc_at_mark_start_ = heap_alloc_;
  // The mark scans the heap, each goroutine's stack as far as it is in use, and the globals.
  scanned_used_ = stack_used_sum_;
  scanned_stacks_ = goroutines_;
  double scan_bytes = static_cast<double>(heap_live_ + stack_used_sum_ + cfg_.globals_bytes);
  mark_work_left_ns_ = scan_bytes * cfg_.mark_ns_per_byte;
  bg_credit_ns_ = 0;
  gc_updated_at_ = sim_.now();
  // gcControllerState.startCycle: 25 % of GOMAXPROCS as whole dedicated workers when the
  // rounding error is within 30 %, the rest as a fractional worker.
  double util = cfg_.gc_bg_utilization * procs_;
  int dedicated = static_cast<int>(util + 0.5);
  double err = util > 0 ? static_cast<double>(dedicated) / util - 1.0 : 0.0;
  if (err < -0.3 || err > 0.3) {
    if (static_cast<double>(dedicated) > util) {
      --dedicated;
    }
  }
  dedicated_workers_ = dedicated;
  fractional_util_ = std::max(0.0, util - dedicated);
  // The fractional worker marks for that fraction of one P's time (the model gives it no P of
  // its own: it runs beside the goroutines, but on the host's cores like them).
  if (fractional_util_ > 1e-9) spawn_gc(mark_worker(incarnation_, mark_id_, fractional_util_));
  dispatch();  // workers take idle Ps first; busy Ps join as their goroutines yield
  kick_sysmon();
  mark_done_check(false);
}

void GoProcess::add_gc_worker() {
  gc_advance();
  ++ps_gc_;
  spawn_gc(mark_worker(incarnation_, mark_id_, 1.0));
}

// gcBgMarkWorker on its M: marks in chunks while it has a core; `duty` < 1 is the fractional
// worker, idle between chunks for the rest of its share.
sim::Process GoProcess::mark_worker(std::uint64_t inc, std::uint64_t mark, double duty) {
  auto serving = [this, inc, mark] {
    return inc == incarnation_ && alive_ && mark == mark_id_ && phase_ == GcPhase::kMark;
  };
  HostCpu::Arrival arrival = HostCpu::Arrival::kQueued;
  while (serving() && mark_work_left_ns_ > 0.5) {
    const auto chunk = static_cast<sim::Duration>(
        std::ceil(std::min(static_cast<double>(cfg_.mark_chunk), mark_work_left_ns_)));
    co_await on_core(chunk, inc, arrival);
    arrival = HostCpu::Arrival::kContinues;
    if (!serving()) co_return;
    mark_progress(static_cast<double>(chunk), true);
    mark_done_check(true);
    if (duty < 1.0 && serving()) {
      co_await sim::sleep(static_cast<sim::Duration>(static_cast<double>(chunk) * (1 - duty) / duty));
      arrival = HostCpu::Arrival::kWoken;
    }
  }
}

void GoProcess::mark_progress(double ns, bool background) {
  double useful = std::min(ns, mark_work_left_ns_);
  mark_work_left_ns_ -= useful;
  if (background) bg_credit_ns_ += useful;  // assists may steal it (gcController.bgScanCredit)
}

void GoProcess::mark_done_check(bool by_worker) {
  if (alive_ && phase_ == GcPhase::kMark && mark_work_left_ns_ <= 0.5) {
    begin_stw(GcPhase::kMarkTermination, by_worker);
  }
}

// gcAssistAlloc: an allocating goroutine owes mark work for its bytes at the current assist
// ratio (remaining scan work over remaining heap distance); it steals background credit
// first and pays the rest in small chunks on its P (assist_chunk_ns) while the limiter allows.
double GoProcess::assist_debt(std::int64_t bytes) {
  if (limiter_enabled_ || mark_work_left_ns_ <= 0) {
    return 0;
  }
  std::int64_t distance = std::max(heap_goal_bytes() - heap_alloc_, cfg_.assist_min_distance_bytes);
  double debt = static_cast<double>(bytes) * mark_work_left_ns_ / static_cast<double>(distance);
  double stolen = std::min(debt, bg_credit_ns_);
  bg_credit_ns_ -= stolen;
  return debt - stolen;
}

// One chunk of assist work of `ns` has just been done on a P.
void GoProcess::assist_done(double ns) {
  gc_advance();
  if (phase_ != GcPhase::kMark) {
    return;
  }
  mark_progress(ns, false);
  account_gc(ns);
  update_limiter();
  mark_done_check(false);
}

void GoProcess::finish_mark() {
  // Objects allocated during mark were allocated black: they survive this cycle as floating
  // garbage; everything else unreachable is swept.
  std::int64_t during_mark = std::max<std::int64_t>(0, heap_alloc_ - alloc_at_mark_start_);
  last_mark_alloc_ = during_mark;
  heap_alloc_ = std::min(heap_alloc_, heap_live_ + during_mark);
  heap_marked_ = heap_alloc_;
  compute_starting_stack();
  trace_gc_phase(GcPhase::kOff);
  phase_ = GcPhase::kOff;
  dedicated_workers_ = 0;
  fractional_util_ = 0;
  mark_work_left_ns_ = 0;
  bg_credit_ns_ = 0;
  ++gc_cycles_;
}

}  // namespace goruntime
