// The GC half of GoProcess: pacer (heap goal and trigger), concurrent mark with dedicated
// workers and assists, the two stop-the-world phases, and the CPU limiter (domain.md §3.3).
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
  double roots = static_cast<double>(stack_bytes() + cfg_.globals_bytes);
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

double GoProcess::mark_rate() const { return static_cast<double>(ps_gc_) + fractional_util_; }

// Brings mark progress and the limiter up to now.
void GoProcess::gc_advance() {
  sim::Time now = sim_.now();
  if (phase_ == GcPhase::kMark && now > gc_updated_at_) {
    double dt = static_cast<double>(now - gc_updated_at_);
    double done = mark_rate() * dt;
    double useful = std::min(done, mark_work_left_ns_);
    mark_work_left_ns_ -= useful;
    bg_credit_ns_ += useful;  // background work assists may steal (gcController.bgScanCredit)
    account_gc(done);
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
  // Assists and STW are charged when they start, so one interval may carry more GC time than
  // its own length; the bucket's clamp absorbs that, no GC time is dropped.
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

// The queue cannot cancel an event, and the projected mark end moves every time a worker
// joins or an assist finishes. Rather than queue one event per projection (most of them
// stale), at most one armed event sits at or before the wanted time; when it fires early it
// re-arms for the latest wanted time.
void GoProcess::schedule_gc_at(sim::Time t) {
  gc_next_ = t;
  if (gc_armed_at_ >= sim_.now() && gc_armed_at_ <= t) {
    return;
  }
  gc_armed_at_ = t;
  sim_.schedule_at(t, gc_event_);
}

void GoProcess::begin_stw(GcPhase phase) {
  gc_advance();
  if (phase == GcPhase::kMarkTermination) {
    // Mark workers stop; their Ps and Ms go idle until the world restarts.
    p_goes_idle(ps_gc_);
    m_idle_ += ps_gc_;
    ps_gc_ = 0;
  }
  trace_gc_phase(phase);
  phase_ = phase;
  stw_ = true;
  stw_began_ = sim_.now();
  // Stopping the world waits for every M and preempts every goroutine: its length grows with
  // both (domain.md §3.3; the slopes are assumptions, the post-mortem gives no pause numbers).
  sim::Duration pause = cfg_.stw_base + cfg_.stw_per_thread * threads() +
                        cfg_.stw_per_1k_goroutines * goroutines_ / 1000;
  stw_last_ = pause;
  stw_peak_ = std::max(stw_peak_, pause);
  stw_hist_.record(pause);
  account_gc(static_cast<double>(pause) * procs_);
  schedule_gc_at(sim_.now() + pause);
}

void GoProcess::start_mark() {
  trace_gc_phase(GcPhase::kMark);
  phase_ = GcPhase::kMark;
  alloc_at_mark_start_ = heap_alloc_;
  double scan_bytes = static_cast<double>(heap_live_ + stack_bytes() + cfg_.globals_bytes);
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
  dispatch();  // workers take idle Ps first; busy Ps join as their goroutines yield
  kick_sysmon();
  project_mark_end();
}

void GoProcess::add_gc_worker() {
  gc_advance();
  ++ps_gc_;
  project_mark_end();
}

void GoProcess::project_mark_end() {
  if (phase_ != GcPhase::kMark || !alive_) {
    return;
  }
  double rate = mark_rate();
  if (mark_work_left_ns_ <= 0.5) {
    schedule_gc_at(sim_.now());
    return;
  }
  if (rate <= 0) {
    return;  // no worker yet; add_gc_worker() reprojects
  }
  auto left = static_cast<sim::Duration>(std::ceil(mark_work_left_ns_ / rate));
  schedule_gc_at(sim_.now() + left);
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
  mark_work_left_ns_ -= std::min(ns, mark_work_left_ns_);
  account_gc(ns);
  update_limiter();
  project_mark_end();
}

void GoProcess::finish_mark() {
  // Objects allocated during mark were allocated black: they survive this cycle as floating
  // garbage; everything else unreachable is swept.
  std::int64_t during_mark = std::max<std::int64_t>(0, heap_alloc_ - alloc_at_mark_start_);
  last_mark_alloc_ = during_mark;
  heap_alloc_ = std::min(heap_alloc_, heap_live_ + during_mark);
  heap_marked_ = heap_alloc_;
  trace_gc_phase(GcPhase::kOff);
  phase_ = GcPhase::kOff;
  dedicated_workers_ = 0;
  fractional_util_ = 0;
  mark_work_left_ns_ = 0;
  bg_credit_ns_ = 0;
  ++gc_cycles_;
}

void GoProcess::gc_step() {
  const sim::Time now = sim_.now();
  if (now == gc_armed_at_) {
    gc_armed_at_ = -1;
  }
  if (!alive_ || gc_next_ == sim::kTimeMax) {
    return;
  }
  if (now < gc_next_) {  // armed for an earlier projection: wait for the current one
    if (gc_armed_at_ < now || gc_armed_at_ > gc_next_) {
      gc_armed_at_ = gc_next_;
      sim_.schedule_at(gc_next_, gc_event_);
    }
    return;
  }
  gc_next_ = sim::kTimeMax;
  switch (phase_) {
    case GcPhase::kSweepTermination:
      stw_ = false;
      sysmon_after_stw(stw_began_);
      start_mark();
      dispatch();
      break;
    case GcPhase::kMark:
      gc_advance();
      if (mark_work_left_ns_ <= 0.5) {
        begin_stw(GcPhase::kMarkTermination);
      } else {
        project_mark_end();
      }
      break;
    case GcPhase::kMarkTermination:
      stw_ = false;
      sysmon_after_stw(stw_began_);
      finish_mark();
      dispatch();
      maybe_start_gc();
      break;
    case GcPhase::kOff:
      break;
  }
}

}  // namespace goruntime
