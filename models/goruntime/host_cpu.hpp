#pragma once
// The host's cores, shared by the runnable OS threads of one process the way Linux's CFS shares
// them among threads of equal weight: with n runnable threads on C cores each progresses at
// min(1, C/n) of a core (egalitarian processor sharing). Who is runnable: an M running Go code
// on a P, and an M inside a syscall that computes in the kernel (a bind(2) searching the
// ephemeral port range). An M blocked in the kernel (a write(2) waiting for pipe room) sleeps
// and takes no core; neither does an idle M.
//
// Why it matters (domain.md §3.2, the inference under "Why logging grows threads": "many short
// blocking syscalls ... under CPU starvation"): when more threads search for ports than there
// are cores, each search lasts longer in wall time, so more of them outlast sysmon's ticks and
// lose their P; and the Ms that take those Ps wait for a core before their Go code reaches
// the next syscall. The first effect grows threads, the second slows their growth.
//
// How: a job of `work` ns finishes when the service per thread, V(t), has grown by `work`
// since it started; V grows at min(1, C/n) per ns. Only the earliest finish needs a kernel
// event; a change of n moves that one event. Threads counted but not tracked as jobs (Go code
// that began while a core was free, see GoProcess::run_on_p) are "background": they take a
// share and run at full speed until their slice ends (≤ one preemption quantum).
//
// Processor sharing is one end of what a real scheduler does. The other end, also here, is
// run to completion: a thread that gets a core keeps it until its work is done and the others
// wait in FIFO order (CoreSharing). Between them, time slices: a thread keeps its core for
// one slice, then goes behind the waiting ones (round robin) — Linux's EEVDF with equal
// weights, where the running thread is not preempted before its slice ends (RUN_TO_PARITY).
// CFS adds its placement of waking threads: one woken from sleep preempts a running thread
// and runs up to half a scheduling period before it yields; a new one queues at the back.
// EEVDF (Linux 6.6 on) orders the line instead of placing at its ends: each thread has a
// vruntime (the core time it has had) and a virtual deadline (vruntime + slice); a core that
// comes free goes to the eligible thread (vruntime no more than V, the service an equal share
// would have given) with the earliest deadline. A thread arriving is placed at V, with a
// deadline half a slice away if new (PLACE_DEADLINE_INITIAL), a whole slice if woken; the
// running one keeps its core to the end of its slice (RUN_TO_PARITY).
#include <cstdint>
#include <algorithm>
#include <deque>
#include <set>
#include <vector>

#include "models/goruntime/config.hpp"
#include "models/goruntime/node_pool.hpp"
#include "sim/process.hpp"
#include "sim/simulation.hpp"

namespace goruntime {

class HostCpu {
 public:
  struct Job;
  // Running jobs in order of finish; seq breaks ties FIFO (never pointer order).
  struct FinishOrder {
    bool operator()(const Job* a, const Job* b) const;
  };
  // Node-pooled: a job enters and leaves these sets at every slice of Go code on a full host.
  using Running = std::set<Job*, FinishOrder, NodePoolAllocator<Job*>>;
  // EEVDF's line in order of virtual deadline; seq breaks ties FIFO.
  struct DeadlineOrder {
    bool operator()(const Job* a, const Job* b) const;
  };
  using Line = std::set<Job*, DeadlineOrder, NodePoolAllocator<Job*>>;
  // One waiting thread's CPU work; lives in the awaiting coroutine's frame.
  struct Job {
    double finish_v = 0;     // V at which the job leaves its core: its work is done or
                             // (time slices) its slice is over
    double work = 0;         // ns of a core it still needs
    double turn_v = 0;       // V when its current turn on a core began
    double vruntime = 0;     // EEVDF: its service in the fair clock's terms
    double deadline = 0;     // EEVDF: vruntime at which its slice request is met
    std::uint64_t seq = 0;
    Running::iterator pos;   // valid while `running`
    bool running = false;
    bool last_turn = false;  // its current turn covers all its work (reaching finish_v = done)
    sim::WakeToken token;
    bool done = false;
    const void* owner = nullptr;  // the process whose thread this is (forget())
  };

  // Its events are of kind "go.cpu", interned at the first job (so a process that never
  // shares a core leaves the kind table, and every fingerprint, as it was).
  // `time_slice` is used by CoreSharing::kTimeSlice only.
  HostCpu(sim::Simulation& sim, int cores,
          CoreSharing sharing = CoreSharing::kProcessorSharing,
          sim::Duration time_slice = 3 * sim::kMillisecond);
  void set_actor(sim::ActorId actor) { event_.actor_id = release_.actor_id = actor; }
  HostCpu(const HostCpu&) = delete;
  HostCpu& operator=(const HostCpu&) = delete;

  // How a thread comes to want a core.
  enum class Arrival {
    kQueued,     // it joins the back of the line (a new thread; any thread but under CFS);
                 // under EEVDF a new thread's deadline is half a slice away
    kContinues,  // its previous work on this host ended at this instant and it goes on
                 // without leaving its core (the Go code before a bind(2), then the search)
    kWoken,      // it was asleep (an idle M that Go wakes): under CFS it preempts at once
  };
  struct RunAwaiter;
  // co_await cpu.run(work): returns once this thread has had `work` ns of a core.
  RunAwaiter run(sim::Duration work, Arrival arrival = Arrival::kQueued,
                 const void* owner = nullptr);

  // A thread that takes a core but is not a job (+1 when it starts, -1 when it ends).
  void add_background(int delta);
  // Whether one more runnable thread would have to share or wait (n + 1 > cores).
  bool busy() const { return runnable() + held() + 1 > cores_; }
  std::int64_t runnable() const {
    return static_cast<std::int64_t>(running_.size() + in_line()) + background_;
  }
  // The most runnable threads at once since construction (reset() keeps it).
  std::int64_t runnable_peak() const { return peak_; }
  int cores() const { return cores_; }
  // Takes `n` cores out of the shared pool for a process pinned to them (a Scylla node's
  // shards: the kubelet's static CPU manager gives a Guaranteed pod exclusive cores, which no
  // other thread may use). Before any thread has run here; at least one core stays shared (the
  // static policy never empties the shared pool). Throws otherwise.
  void reserve(int n);
  // The process died: every thread is gone (their frames are being cancelled).
  void reset();
  // One of the processes sharing this host died (a machine of several processes): its jobs
  // leave the cores and the line, `background` of its background threads end, the others go
  // on and take the cores it held.
  void forget(const void* owner, std::int64_t background);

  // For the awaiter.
  void start(Job& job, sim::Duration work, Arrival arrival);
  void withdraw(Job& job);

 private:
  struct Event : sim::Handler {
    HostCpu* cpu = nullptr;
    void on_event(sim::Simulation&) override { cpu->finish_due(); }
  };
  struct ReleaseEvent : sim::Handler {
    HostCpu* cpu = nullptr;
    void on_event(sim::Simulation&) override { cpu->release_held(); }
  };
  double rate() const;  // service per thread per ns
  void advance();       // brings V up to now at the current rate
  void reschedule();    // one event at the earliest finish
  void finish_due();
  void begin(Job& job, double turn);  // the job runs from now, for at most `turn`
  void preempt_for_woken();           // CFS: a running job yields its core to a woken one
  void stop(Job& job);   // it leaves the running set
  void end_turn(Job& job);  // it leaves its core with the work of this turn done
  // A thread whose work ended at this instant while others waited for a core (run to
  // completion, time slices) still holds that core until the instant is over; one that goes
  // on takes it back here (true) instead of queueing behind the others.
  bool take_held(Job& job);
  sim::Kind kind();  // "go.cpu", interned at the first event
  void run_waiting();    // run to completion, time slices: waiting jobs take the free cores
  std::size_t in_line() const { return waiting_.size() + line_.size(); }
  void line_up(Job& job, bool front);  // it waits for a core
  Job& next_in_line();                 // the one a core that comes free goes to
  void place(Job& job, bool initial);  // EEVDF: at V, its deadline a slice (or half) away
  // A thread's work ended now: keep its core to the end of the instant, with the thread's
  // vruntime and deadline, so that under EEVDF one going on carries on with its slice.
  struct SliceState {
    double vruntime = 0, deadline = 0;
  };
  void hold_core(const SliceState& state);
  std::int64_t held() const { return static_cast<std::int64_t>(held_.size()); }
  void release_held();   // the instant is over: held cores nobody took back go to the line
  std::int64_t taken() const {
    return static_cast<std::int64_t>(running_.size()) + background_ + held();
  }
  void note_peak() { peak_ = std::max(peak_, runnable()); }

  sim::Simulation& sim_;
  int cores_;
  CoreSharing sharing_;
  double slice_;  // ns a job keeps a core per turn (infinite but under time slices and CFS)
  double woken_turn_;  // CFS: a woken thread's first turn, its sleeper credit
  Event event_;
  ReleaseEvent release_;
  sim::Kind kind_ = 0;
  bool release_pending_ = false;
  sim::Time event_at_ = sim::kTimeMax;
  double v_ = 0;
  sim::Time v_at_ = 0;
  double fair_v_ = 0;  // EEVDF's V: service per thread had the cores been shared equally
  std::int64_t background_ = 0;
  std::uint64_t next_seq_ = 0;
  std::int64_t peak_ = 0;
  Running running_;
  std::deque<Job*> waiting_;  // jobs waiting for a core, FIFO (not processor sharing, EEVDF)
  Line line_;                 // jobs waiting for a core under EEVDF
  std::deque<SliceState> held_;  // cores held across the end of their thread's work (this
                                 // instant), each with that thread's slice
  std::vector<SliceState> done_;  // scratch: the jobs whose work ended at this instant
};

inline bool HostCpu::FinishOrder::operator()(const Job* a, const Job* b) const {
  return a->finish_v < b->finish_v || (a->finish_v == b->finish_v && a->seq < b->seq);
}

inline bool HostCpu::DeadlineOrder::operator()(const Job* a, const Job* b) const {
  return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

struct HostCpu::RunAwaiter {
  HostCpu* cpu;
  sim::Duration work;
  Arrival arrival;
  Job job;
  sim::ProcState* p = nullptr;
  bool await_ready() const noexcept { return work <= 0; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    // Killable: only a crash kills, and its reset() has dropped the job (withdraw is a no-op).
    if (!sim::park_killable(h, p)) return false;
    job.token = sim::WakeToken{p, p->gen};
    cpu->start(job, work, arrival);
    return true;
  }
  void await_resume() {
    if (p == nullptr) return;
    if (!job.done) cpu->withdraw(job);  // cancelled before its work was done
    sim::throw_if_cancelled(p);
  }
};

inline HostCpu::RunAwaiter HostCpu::run(sim::Duration work, Arrival arrival,
                                        const void* owner) {
  RunAwaiter a{this, work, arrival, {}};
  a.job.owner = owner;
  return a;
}

}  // namespace goruntime
