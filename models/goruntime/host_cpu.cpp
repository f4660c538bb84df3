#include "models/goruntime/host_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace goruntime {
namespace {
// Rounding slack on V: a job whose finish is this close to V is done (V is a sum of doubles).
constexpr double kEpsilonNs = 1e-6;
}  // namespace

HostCpu::HostCpu(sim::Simulation& sim, int cores, CoreSharing sharing)
    : sim_(sim), cores_(cores), sharing_(sharing) {
  if (cores < 1) throw std::invalid_argument("goruntime: a host needs at least one core");
  event_.cpu = this;
  v_at_ = sim.now();
}

double HostCpu::rate() const {
  if (sharing_ == CoreSharing::kRunToCompletion) return 1.0;  // a running job owns its core
  const std::int64_t n = runnable();
  return n <= cores_ ? 1.0 : static_cast<double>(cores_) / static_cast<double>(n);
}

void HostCpu::advance() {
  const sim::Time now = sim_.now();
  if (now > v_at_) v_ += static_cast<double>(now - v_at_) * rate();
  v_at_ = now;
  if (heap_.empty()) v_ = 0;  // rebase while nobody waits: V stays small and exact
}

void HostCpu::reschedule() {
  if (heap_.empty()) {
    event_at_ = sim::kTimeMax;  // a queued event, if any, finds nothing and stops
    return;
  }
  const double left = std::max(0.0, heap_.front()->finish_v - v_);
  const auto wait = static_cast<sim::Duration>(std::ceil(left / rate()));
  const sim::Time t = sim_.now() + wait;
  if (t == event_at_) return;
  event_at_ = t;
  if (event_.kind == 0) event_.kind = sim_.intern_kind("go.cpu");
  sim_.schedule_at(t, event_);
}

void HostCpu::start(Job& job, sim::Duration work) {
  advance();
  job.work = static_cast<double>(work);
  job.seq = next_seq_++;
  job.done = false;
  job.slot = kNoSlot;
  if (sharing_ == CoreSharing::kRunToCompletion &&
      static_cast<std::int64_t>(heap_.size()) + background_ >= cores_) {
    waiting_.push_back(&job);  // every core is taken
    return;
  }
  begin(job);
  reschedule();
}

void HostCpu::begin(Job& job) {
  job.finish_v = v_ + job.work;
  job.slot = heap_.size();
  heap_.push_back(&job);
  sift_up(job.slot);
}

void HostCpu::run_waiting() {
  while (!waiting_.empty() && static_cast<std::int64_t>(heap_.size()) + background_ < cores_) {
    Job& j = *waiting_.front();
    waiting_.pop_front();
    begin(j);
  }
}

void HostCpu::withdraw(Job& job) {
  if (job.slot == kNoSlot) {
    // Waiting for a core (run to completion), or already dropped by reset().
    auto it = std::find(waiting_.begin(), waiting_.end(), &job);
    if (it != waiting_.end()) waiting_.erase(it);
    return;
  }
  advance();
  remove_at(job.slot);
  run_waiting();
  reschedule();
}

void HostCpu::add_background(int delta) {
  advance();
  background_ += delta;
  if (background_ < 0) throw std::logic_error("goruntime: HostCpu background below zero");
  run_waiting();
  reschedule();
}

void HostCpu::reset() {
  for (Job* j : heap_) j->slot = kNoSlot;
  heap_.clear();
  waiting_.clear();
  background_ = 0;
  v_ = 0;
  v_at_ = sim_.now();
  event_at_ = sim::kTimeMax;
}

void HostCpu::finish_due() {
  if (sim_.now() != event_at_) return;  // superseded
  event_at_ = sim::kTimeMax;
  advance();
  while (!heap_.empty() && heap_.front()->finish_v <= v_ + kEpsilonNs) {
    Job& j = *heap_.front();
    remove_at(0);
    j.done = true;
    sim_.wake(j.token);
  }
  // The finished threads leave the runnable set now: the rest speed up from here, or (run
  // to completion) the next in line take the freed cores.
  run_waiting();
  reschedule();
}

void HostCpu::sift_up(std::size_t i) {
  Job* x = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!before(x, heap_[parent])) break;
    heap_[i] = heap_[parent];
    heap_[i]->slot = i;
    i = parent;
  }
  heap_[i] = x;
  x->slot = i;
}

void HostCpu::sift_down(std::size_t i) {
  Job* x = heap_[i];
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(heap_[c + 1], heap_[c])) ++c;
    if (!before(heap_[c], x)) break;
    heap_[i] = heap_[c];
    heap_[i]->slot = i;
    i = c;
  }
  heap_[i] = x;
  x->slot = i;
}

void HostCpu::remove_at(std::size_t i) {
  heap_[i]->slot = kNoSlot;
  Job* last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;
  heap_[i] = last;
  last->slot = i;
  sift_up(i);
  sift_down(last->slot);
}

}  // namespace goruntime
