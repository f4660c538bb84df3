#pragma once
// One Scylla shard's CPU as Seastar's reactor runs it (docs/models/scylla.md, "Seastar
// scheduling"). Work is queued as tasks in scheduling groups, each group a FIFO task queue with
// `shares`. The reactor picks the active group with the lowest virtual runtime (runtime /
// shares), runs its tasks in order until the queue empties or the task quota (~0.5 ms,
// Seastar's --task-quota-ms) expires, then picks again. A task longer than what is left of the
// quota yields at its end and goes to the back of its group's queue (Seastar's maybe_yield /
// need_preempt): a 20 us write queued behind a 100 ms trim or compaction runs after at most
// one quota's worth of it, not after all of it. Preemption is checked between tasks, so a task
// no longer than a quota (one continuation's worth) runs whole, even past the quota's end. A group that wakes from idle starts at the
// reactor's latest vruntime, so idle time is not banked (seastar reactor.cc, activate()).
//
// Pure state, no simulator: the owner tells it arrivals in time order (`submit`) and asks it to
// run up to an instant (`run_until`); completions are reported through a callback with their
// exact instant. Nothing is drawn at random here.
#include <array>
#include <cstdint>
#include <memory>

#include "sim/time.hpp"

namespace scylla {

enum class Group : std::uint8_t { Statement = 0, Compaction = 1, Streaming = 2 };
inline constexpr std::size_t kGroups = 3;
const char* group_name(Group g);

struct ReactorConfig {
  // Seastar's default --task-quota-ms is 0.5 (seastar reactor options).
  sim::Duration task_quota = 500 * sim::kMicrosecond;
  // Scylla's main.cc: statement 1000, compaction 1000, streaming 200 (compaction's shares are
  // then moved by its backlog controller; static here: compaction_static_shares).
  std::array<double, kGroups> shares{1000.0, 1000.0, 200.0};
  void validate() const;
};

class Reactor {
 public:
  explicit Reactor(const ReactorConfig* cfg) : cfg_(cfg) {}

  // Queues `work` (>= 1 ns) in group g at instant t (>= now(); earlier work already run to t
  // by the caller). cookie != 0: reported to run_until's callback when the task completes.
  void submit(sim::Time t, Group g, sim::Duration work, std::uint64_t cookie);

  // Runs the CPU up to `t`; calls done(cookie, instant) for each completed task whose cookie
  // is non-zero, in completion order.
  template <class F>
  void run_until(sim::Time t, F&& done);

  // The next instant the reactor changes what it runs (a task ends or yields), kTimeMax when
  // idle. Arrivals after now() never move it earlier: the running task is not interrupted.
  sim::Time next_decision() const;

  // When a task of group g submitted at t (the reactor run to t) would complete, if that is
  // already certain; else kTimeMax. Certain: it fits in one quota and either the reactor is
  // idle, or g is running and the task would end, behind g's queued work, before the quota
  // expires -- nothing arriving later can then cut in before it. Past the quota's end it is
  // still certain when g is the only group with work, none of g's queued tasks is long enough
  // to yield (which would reorder the queue), and the caller knows no other group's work
  // arrives before `others_quiet_until` while the task would end earlier: every quota then
  // ends with g picked again, and later arrivals of g queue behind it.
  sim::Time certain_completion(sim::Time t, Group g, sim::Duration work,
                               sim::Time others_quiet_until) const {
    if (work > cfg_->task_quota) return sim::kTimeMax;
    if (queued_ == 0) return (t > now_ ? t : now_) + work;
    if (running_ != static_cast<int>(idx(g))) return sim::kTimeMax;
    const Queue& q = groups_[idx(g)];
    const sim::Time end = now_ + q.work + work;
    if (end <= slice_end_) return end;
    if (queued_ == q.q.size() && yielding_ == 0 && end < others_quiet_until) return end;
    return sim::kTimeMax;
  }

  bool idle() const { return queued_ == 0; }
  sim::Time now() const { return now_; }
  std::uint64_t pending_cookies() const { return cookies_; }
  // CPU time each group has received since the start (what the shares divide).
  sim::Duration ran(Group g) const { return groups_[idx(g)].ran; }
  double vruntime(Group g) const { return groups_[idx(g)].vruntime; }
  std::size_t queued(Group g) const { return groups_[idx(g)].q.size(); }
  // Work conservation: each group has run exactly what it was given minus what is left in
  // its queue, the CPU never ran more than the time that passed, and a group runs whenever a
  // task is queued. "" or what is off (scylla/cluster_check.cpp checks every shard).
  const char* conservation_error() const;
#ifdef SKYSIM_PLANTED_BUGS
  // Planted bug's hook (ScyllaCluster::set_down_nodes): the books start afresh — nothing
  // given — while what ran and what is queued stay.
  void planted_reset_books() {
    for (Queue& g : groups_) g.given = 0;
  }
#endif

 private:
  struct Task {
    sim::Duration left;
    std::uint64_t cookie;
    bool yields;  // longer than a quota: checks need_preempt() as it goes
  };
  // A FIFO of tasks (what std::deque was here): the front task inline, the rest in one
  // power-of-two ring. A shard's queues are touched on every arrival of the fleet background,
  // and the front task is what each step reads (docs/benchmarks.md, h-fanspeed).
  class TaskRing {
   public:
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    Task& front() { return front_; }
    const Task& front() const { return front_; }
    const Task& at(std::size_t i) const {  // i-th in queue order, i < size()
      return i == 0 ? front_ : buf_[(head_ + i - 1) & (cap_ - 1)];
    }
    void pop_front() {
      if (--size_ == 0) return;
      front_ = buf_[head_];
      head_ = (head_ + 1) & (cap_ - 1);
    }
    void push_back(const Task& t) {
      if (size_ == 0) {
        front_ = t;
      } else {
        if (size_ - 1 == cap_) grow();
        buf_[(head_ + size_ - 1) & (cap_ - 1)] = t;
      }
      ++size_;
    }

   private:
    void grow() {
      const std::uint32_t cap = cap_ == 0 ? 8 : 2 * cap_;
      std::unique_ptr<Task[]> next(new Task[cap]);
      for (std::uint32_t i = 0; i < cap_; ++i) next[i] = buf_[(head_ + i) & (cap_ - 1)];
      buf_ = std::move(next);
      cap_ = cap;
      head_ = 0;
    }
    Task front_{};
    std::unique_ptr<Task[]> buf_;  // the size_ - 1 tasks behind front_, from head_
    std::uint32_t head_ = 0;
    std::uint32_t size_ = 0;
    std::uint32_t cap_ = 0;
  };
  struct Queue {
    TaskRing q;
    double vruntime = 0;
    sim::Duration ran = 0;
    sim::Duration work = 0;  // left in the queue
    sim::Duration given = 0;  // submitted since the start
  };
  static std::size_t idx(Group g) { return static_cast<std::size_t>(g); }
  // Chooses the group that runs from now_ (lowest vruntime; ties to the lower id), -1 if
  // every queue is empty. Invariant: running_ >= 0 whenever a task is queued.
  void pick();
  sim::Time piece_end() const;

  const ReactorConfig* cfg_;
  std::array<Queue, kGroups> groups_;
  sim::Time now_ = 0;
  sim::Time slice_end_ = 0;  // when need_preempt() turns true for the running group
  int running_ = -1;         // group index, -1 when idle
  double last_vruntime_ = 0;
  std::uint32_t queued_ = 0;
  std::uint32_t yielding_ = 0;  // queued tasks longer than a quota
  std::uint64_t cookies_ = 0;
};

// Inline: asked after every arrival at a shard someone waits on (wake_at_next_decision).
inline sim::Time Reactor::piece_end() const {
  const Task& task = groups_[static_cast<std::size_t>(running_)].q.front();
  const sim::Time full = now_ + task.left;
  if (!task.yields) return full;
  // A task cannot be cut before it starts: at least 1 ns of progress per piece.
  const sim::Time quota = slice_end_ > now_ ? slice_end_ : now_ + 1;
  return full < quota ? full : quota;
}

inline sim::Time Reactor::next_decision() const {
  return queued_ == 0 ? sim::kTimeMax : piece_end();
}

template <class F>
void Reactor::run_until(sim::Time t, F&& done) {
  while (now_ < t) {
    if (queued_ == 0) {
      now_ = t;
      return;
    }
    Queue& g = groups_[static_cast<std::size_t>(running_)];
    Task& task = g.q.front();
    const sim::Time end = piece_end();
    const sim::Time stop = end < t ? end : t;
    const sim::Duration d = stop - now_;
    task.left -= d;
    g.work -= d;
    g.ran += d;
    g.vruntime += static_cast<double>(d) / cfg_->shares[static_cast<std::size_t>(running_)];
    now_ = stop;
    if (stop < end) return;  // paused at t, mid-piece
    if (task.left == 0) {
      const std::uint64_t cookie = task.cookie;
      yielding_ -= task.yields ? 1 : 0;
      g.q.pop_front();
      --queued_;
      // The next choice is made before the callback, which may queue work here or ask for
      // next_decision(): the running group must have a task whenever one is queued.
      if (g.q.empty() || now_ >= slice_end_) pick();
      if (cookie != 0) {
        --cookies_;
        done(cookie, now_);
      }
    } else {
      // Quota expired inside a long task: it yields to the back of its queue.
      const Task rest = task;
      g.q.pop_front();
      g.q.push_back(rest);
      pick();
    }
  }
}

}  // namespace scylla
