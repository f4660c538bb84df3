#include "models/scylla/reactor.hpp"

#include <stdexcept>

namespace scylla {

const char* group_name(Group g) {
  switch (g) {
    case Group::Statement:
      return "statement";
    case Group::Compaction:
      return "compaction";
    case Group::Streaming:
      return "streaming";
  }
  return "?";
}

void ReactorConfig::validate() const {
  if (task_quota <= 0) {
    throw std::invalid_argument("scylla: task_quota must be > 0");
  }
  for (double s : shares) {
    if (!(s >= 1.0)) {  // Seastar floors shares at 1
      throw std::invalid_argument("scylla: scheduling group shares must be >= 1");
    }
  }
}

void Reactor::submit(sim::Time t, Group g, sim::Duration work, std::uint64_t cookie) {
  if (t > now_) {
    // The owner ran us to t first; an idle reactor simply jumps.
    if (queued_ != 0) throw std::logic_error("scylla reactor: submit ahead of run_until");
    now_ = t;
  }
  Queue& q = groups_[idx(g)];
  if (q.q.empty() && q.vruntime < last_vruntime_) {
    // Waking from idle: no credit for the time it had nothing to run.
    q.vruntime = last_vruntime_;
  }
  const bool was_idle = queued_ == 0;
  const sim::Duration w = work > 0 ? work : 1;
  const bool yields = w > cfg_->task_quota;
  q.q.push_back(Task{w, cookie, yields});
  yielding_ += yields ? 1 : 0;
  q.work += w;
  q.given += w;
  ++queued_;
  if (cookie != 0) ++cookies_;
  if (was_idle) {
    slice_end_ = now_ + cfg_->task_quota;  // a fresh run_some_tasks() period
    pick();
  }
}

void Reactor::pick() {
  int best = -1;
  for (std::size_t i = 0; i < kGroups; ++i) {
    if (groups_[i].q.empty()) continue;
    if (best < 0 || groups_[i].vruntime < groups_[static_cast<std::size_t>(best)].vruntime) {
      best = static_cast<int>(i);
    }
  }
  running_ = best;
  if (best < 0) return;
  if (now_ >= slice_end_) slice_end_ = now_ + cfg_->task_quota;
  const double v = groups_[static_cast<std::size_t>(best)].vruntime;
  if (v > last_vruntime_) last_vruntime_ = v;
}

const char* Reactor::conservation_error() const {
  sim::Duration ran_total = 0;
  std::size_t tasks = 0;
  for (const Queue& g : groups_) {
    if (g.given != g.ran + g.work) return "a group ran more or less than it was given";
    ran_total += g.ran;
    tasks += g.q.size();
  }
  if (ran_total > now_) return "the CPU ran longer than the time that passed";
  if (tasks != queued_) return "queued task count differs from the queues";
  std::size_t long_tasks = 0;
  for (const Queue& g : groups_) {
    for (std::size_t i = 0; i < g.q.size(); ++i) long_tasks += g.q.at(i).yields ? 1 : 0;
  }
  if (long_tasks != yielding_) return "yielding task count differs from the queues";
  if ((queued_ != 0) != (running_ >= 0)) return "tasks queued but no group running";
  return "";
}

}  // namespace scylla
