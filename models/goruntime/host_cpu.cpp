#include "models/goruntime/host_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace goruntime {
namespace {
// Rounding slack on V: a job whose finish is this close to V is done (V is a sum of doubles).
constexpr double kEpsilonNs = 1e-6;

bool sliced(CoreSharing s) {
  return s == CoreSharing::kTimeSlice || s == CoreSharing::kCfs || s == CoreSharing::kEevdf;
}
}  // namespace

HostCpu::HostCpu(sim::Simulation& sim, int cores, CoreSharing sharing, sim::Duration time_slice)
    : sim_(sim),
      cores_(cores),
      sharing_(sharing),
      slice_(sliced(sharing) ? static_cast<double>(time_slice)
                             : std::numeric_limits<double>::infinity()),
      // CFS places a woken thread at min_vruntime - sched_latency / 2 (GENTLE_FAIR_SLEEPERS):
      // 24 ms / 2 on 8+ CPUs, four of its 3-ms minimum slices, both scaled alike
      // (kernel/sched/fair.c, place_entity, sysctl_sched_latency 6 ms x 4).
      woken_turn_(4 * slice_) {
  if (cores < 1) throw std::invalid_argument("goruntime: a host needs at least one core");
  if (sliced(sharing) && time_slice <= 0) {
    throw std::invalid_argument("goruntime: a time slice must be > 0");
  }
  event_.cpu = this;
  release_.cpu = this;
  v_at_ = sim.now();
}

double HostCpu::rate() const {
  if (sharing_ != CoreSharing::kProcessorSharing) return 1.0;  // a running job owns its core
  const std::int64_t n = runnable();
  return n <= cores_ ? 1.0 : static_cast<double>(cores_) / static_cast<double>(n);
}

void HostCpu::advance() {
  const sim::Time now = sim_.now();
  if (now > v_at_) {
    const auto dt = static_cast<double>(now - v_at_);
    v_ += dt * rate();
    if (sharing_ == CoreSharing::kEevdf) {
      const std::int64_t n = runnable();
      fair_v_ += n <= cores_ ? dt : dt * static_cast<double>(cores_) / static_cast<double>(n);
    }
  }
  v_at_ = now;
  if (running_.empty()) v_ = 0;  // rebase while nobody runs: V stays small and exact
  if (running_.empty() && line_.empty()) fair_v_ = 0;
}

void HostCpu::reschedule() {
  if (running_.empty()) {
    event_at_ = sim::kTimeMax;  // a queued event, if any, finds nothing and stops
    return;
  }
  const double left = std::max(0.0, (*running_.begin())->finish_v - v_);
  const auto wait = static_cast<sim::Duration>(std::ceil(left / rate()));
  const sim::Time t = sim_.now() + wait;
  if (t == event_at_) return;
  event_at_ = t;
  event_.kind = kind();
  sim_.schedule_at(t, event_);
}

void HostCpu::start(Job& job, sim::Duration work, Arrival arrival) {
  advance();
  job.work = static_cast<double>(work);
  job.seq = next_seq_++;
  job.done = false;
  if (sharing_ == CoreSharing::kEevdf) place(job, arrival == Arrival::kQueued);
  if (arrival == Arrival::kContinues && take_held(job)) {
    begin(job, slice_);  // its own core, still held
  } else if (sharing_ == CoreSharing::kCfs && arrival == Arrival::kWoken) {
    if (taken() >= cores_) preempt_for_woken();
    if (taken() < cores_) {
      begin(job, woken_turn_);
    } else {
      line_up(job, true);  // every core is a background or held one: next in line
    }
  } else if (sharing_ != CoreSharing::kProcessorSharing && taken() >= cores_) {
    line_up(job, false);  // every core is taken
  } else {
    begin(job, slice_);
  }
  reschedule();
  note_peak();
}

void HostCpu::begin(Job& job, double turn) {
  // EEVDF: it runs until its slice request is met (a new thread's first is half a slice).
  if (sharing_ == CoreSharing::kEevdf) turn = std::max(job.deadline - job.vruntime, kEpsilonNs);
  job.turn_v = v_;
  job.finish_v = v_ + std::min(job.work, turn);
  job.last_turn = job.work <= turn;
  job.pos = running_.insert(&job).first;
  job.running = true;
}

void HostCpu::stop(Job& job) {
  running_.erase(job.pos);
  job.running = false;
}

void HostCpu::end_turn(Job& job) {
  stop(job);
  job.work -= v_ - job.turn_v;
  job.vruntime += v_ - job.turn_v;
}

void HostCpu::run_waiting() {
  while (in_line() > 0 && taken() < cores_) begin(next_in_line(), slice_);
}

void HostCpu::line_up(Job& job, bool front) {
  if (sharing_ == CoreSharing::kEevdf) {
    line_.insert(&job);
  } else if (front) {
    waiting_.push_front(&job);
  } else {
    waiting_.push_back(&job);
  }
}

HostCpu::Job& HostCpu::next_in_line() {
  if (sharing_ != CoreSharing::kEevdf) {
    Job& j = *waiting_.front();
    waiting_.pop_front();
    return j;
  }
  // The earliest deadline among the eligible: those that have had no more than their share.
  auto it = line_.begin();
  while (it != line_.end() && (*it)->vruntime > fair_v_ + kEpsilonNs) ++it;
  if (it == line_.end()) it = line_.begin();  // rounding: someone is always eligible
  Job& j = **it;
  line_.erase(it);
  return j;
}

void HostCpu::place(Job& job, bool initial) {
  // Lag 0: a thread starts from the share it would have had (the model keeps no M's lag
  // across its sleeps).
  job.vruntime = fair_v_;
  job.deadline = fair_v_ + (initial ? slice_ / 2 : slice_);
}

void HostCpu::withdraw(Job& job) {
  if (!job.running) {
    // Waiting for a core, or already dropped by reset().
    auto it = std::find(waiting_.begin(), waiting_.end(), &job);
    if (it != waiting_.end()) waiting_.erase(it);
    line_.erase(&job);
    return;
  }
  advance();
  stop(job);
  run_waiting();
  reschedule();
}

void HostCpu::add_background(int delta) {
  advance();
  background_ += delta;
  if (background_ < 0) throw std::logic_error("goruntime: HostCpu background below zero");
  // Go code that ran without being a job has no slice of its own here: a fresh one.
  if (delta < 0) hold_core(SliceState{fair_v_, fair_v_ + slice_});
  run_waiting();
  reschedule();
  note_peak();
}

void HostCpu::preempt_for_woken() {
  // The running job furthest into its turn yields (deterministic: ties by arrival); in CFS it
  // keeps its small vruntime, so it is next in line.
  Job* victim = nullptr;
  for (Job* j : running_) {
    if (victim == nullptr || j->turn_v < victim->turn_v ||
        (j->turn_v == victim->turn_v && j->seq < victim->seq)) {
      victim = j;
    }
  }
  if (victim == nullptr) return;  // the cores are background or held threads
  end_turn(*victim);
  line_up(*victim, true);
}

sim::Kind HostCpu::kind() {
  if (kind_ == 0) kind_ = sim_.intern_kind("go.cpu");
  return kind_;
}

bool HostCpu::take_held(Job& job) {
  if (held_.empty()) return false;
  const SliceState st = held_.front();
  held_.pop_front();
  if (sharing_ == CoreSharing::kEevdf) {
    // The thread does not leave the run queue, its slice goes on (any held core's state will
    // do: the threads that finished at one instant are alike).
    job.vruntime = st.vruntime;
    job.deadline = st.deadline > st.vruntime + kEpsilonNs ? st.deadline : st.vruntime + slice_;
  }
  return true;
}

void HostCpu::hold_core(const SliceState& state) {
  // Processor sharing has no line to jump; with nobody waiting the core is free anyway.
  if (sharing_ == CoreSharing::kProcessorSharing || in_line() == 0) return;
  held_.push_back(state);
  if (release_pending_) return;
  release_pending_ = true;
  release_.kind = kind();
  sim_.schedule_at(sim_.now(), release_);  // after the wakes of this instant
}

void HostCpu::release_held() {
  release_pending_ = false;
  held_.clear();
  advance();
  run_waiting();
  reschedule();
}

void HostCpu::reserve(int n) {
  if (n < 0 || n >= cores_) {
    throw std::invalid_argument("cannot pin " + std::to_string(n) + " of the " +
                                std::to_string(cores_) + " shared cores: at least one stays shared");
  }
  if (!running_.empty() || in_line() > 0 || background_ > 0 || !held_.empty()) {
    throw std::logic_error("HostCpu: cores pinned after threads ran");
  }
  cores_ -= n;
}

void HostCpu::reset() {
  for (Job* j : running_) j->running = false;
  running_.clear();
  waiting_.clear();
  line_.clear();
  held_.clear();
  fair_v_ = 0;
  background_ = 0;
  v_ = 0;
  v_at_ = sim_.now();
  event_at_ = sim::kTimeMax;
}

void HostCpu::forget(const void* owner, std::int64_t background) {
  advance();  // V up to now at the rate the dead threads shared
  for (auto it = running_.begin(); it != running_.end();) {
    if ((*it)->owner != owner) {
      ++it;
      continue;
    }
    (*it)->running = false;
    it = running_.erase(it);
  }
  std::erase_if(waiting_, [owner](const Job* j) { return j->owner == owner; });
  std::erase_if(line_, [owner](const Job* j) { return j->owner == owner; });
  background_ -= background;
  if (background_ < 0) throw std::logic_error("goruntime: HostCpu background below zero");
  run_waiting();  // the cores the dead process held go to the threads in line
  reschedule();
}

void HostCpu::finish_due() {
  if (sim_.now() != event_at_) return;  // superseded
  event_at_ = sim::kTimeMax;
  advance();
  std::vector<Job*> slice_over;
  while (!running_.empty() && (*running_.begin())->finish_v <= v_ + kEpsilonNs) {
    Job& j = **running_.begin();
    end_turn(j);
    // A turn that covered all its work is the end of it, whatever V's rounding left in `work`:
    // V is a sum of doubles, rebased only when nobody runs; a turn across 2^34 ns of it has its
    // finish rounded down by 1.9e-6 ns, over kEpsilonNs, and the job was lined up again with
    // that much left (never to run, or begun again at the same instant for ever). Found on a
    // machine two busy processes shared; tests/models/goruntime/test_host_cpu.cpp.
    if (!j.last_turn && j.work > kEpsilonNs) {
      slice_over.push_back(&j);
      continue;
    }
    j.done = true;
    // Processor sharing holds no core (hold_core); the default run's path stays as it was.
    if (sharing_ != CoreSharing::kProcessorSharing) done_.push_back({j.vruntime, j.deadline});
    sim_.wake(j.token);
  }
  // Round robin: a thread whose slice is over goes behind those waiting (or straight back
  // onto its core when nobody waits).
  // EEVDF: its next slice request starts where this one was met; the line decides who runs.
  for (Job* j : slice_over) {
    if (sharing_ == CoreSharing::kEevdf) j->deadline = j->vruntime + slice_;
    line_up(*j, false);
  }
  // The threads whose work is done keep their cores to the end of this instant, in case they
  // go on (run to completion, time slices, with others waiting).
  for (const SliceState& st : done_) hold_core(st);
  done_.clear();
  // The finished threads leave the runnable set now: the rest speed up from here, or the
  // next in line take the freed cores.
  run_waiting();
  reschedule();
}

}  // namespace goruntime
