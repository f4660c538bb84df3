#pragma once
// A Go process on a host (domain.md §3): goroutines, GOMAXPROCS Ps, Ms (OS threads), sysmon,
// blocking syscalls, the GC pacer and limiter, memory and RSS, OOM kill and restart.
//
// Simulated Go code reads like Go:
//
//   sim::Process handle_uri(GoProcess& go, LogSink& sink, std::string uri) {
//     auto g = co_await go.goroutine();          // counted, 2 KiB stack, killed by a crash
//     co_await go.alloc_live(4 * kKiB);          // objects this request keeps reachable
//     co_await go.cpu(30 * sim::kMicrosecond);   // Go code: waits for a P
//     co_await go.syscall_write(sink, 180);      // log.Error → blocking write(2) on an M
//     go.release(4 * kKiB);
//   }
//
// Mechanisms, not curves: latency under load comes from goroutines queueing for Ps; threads
// grow because a goroutine in a blocking syscall keeps its M while sysmon hands its P to
// another M; GC cost comes from mark work per cycle times cycles per second, which the pacer
// and GOMEMLIMIT decide; an OOM kill is RSS crossing the container limit.
//
// Lifetime: call Simulation::shutdown() before destroying a GoProcess (pending sysmon and GC
// events point at it; frames of goroutines hold Goroutine guards that point at it).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/goruntime/config.hpp"
#include "models/goruntime/host_cpu.hpp"
#include "models/goruntime/sysmon_clock.hpp"
#include "models/goruntime/write_target.hpp"
#include "sim/histogram.hpp"
#include "sim/process.hpp"

namespace goruntime {

// kDeploy is an orderly replacement by a new build: the process stops and its successor starts
// at once, with no kubelet back-off (but with the kernel state the old one left behind).
// kOomKill: the container's own memory limit (its cgroup); kNodeOomKill: the node's memory,
// where the kernel's OOM killer picks the process with the most memory, which need not be the
// one allocating. kEvicted: the kubelet's node-pressure eviction (memory.available under its
// threshold): the pod is failed and its Deployment's replacement starts later, with no
// CrashLoopBackOff (a new pod; evict()).
enum class CrashReason {
  kOomKill,
  kThreadExhaustion,
  kExternal,
  kDeploy,
  kNodeOomKill,
  kEvicted
};
// The line a crashed Go process (or the kernel) leaves in the logs.
std::string_view crash_message(CrashReason r);

class GoProcess;

// Held by a goroutine's frame for its lifetime: counts it, charges its stack, lets a crash
// cancel it. Obtained with `auto g = co_await go.goroutine();`.
class Goroutine : public sim::ListNode {
 public:
  // `stack_used`: bytes of stack the goroutine uses (its stack grows to fit them).
  Goroutine(GoProcess* owner, sim::ProcState* self, std::int64_t stack_used);
  ~Goroutine();
  Goroutine(const Goroutine&) = delete;
  Goroutine& operator=(const Goroutine&) = delete;

 private:
  friend class GoProcess;
  GoProcess* owner_;
  std::uint64_t incarnation_;
  sim::ProcessHandle self_;
  sim::Simulation* sim_;  // to close its trace lane even after the process crashed
  sim::ActorId actor_;
  std::int64_t stack_used_ = 0;   // what the GC's stack scan sees in use
  std::int64_t stack_bytes_ = 0;  // its stack: the starting size, grown to fit its use
};

// A goroutine waiting for a P (the run queue).
struct RunWaiter : sim::Waiter {
  bool granted = false;
  HostCpu::Arrival arrival = HostCpu::Arrival::kQueued;  // how its M came to run it
};

// A goroutine inside a blocking syscall whose M still holds its P (P in _Psyscall).
struct SyscallRecord : sim::ListNode {
  sim::Time since = 0;
  bool retaken = false;
};

// An M running a slice of Go code on a P, while the slice lasts: a stop-the-world asks whether
// that M is on a core (then it takes the preemption signal at once) or waiting for one.
// A stopped M leaves its core until the world restarts (`parked`); the model keeps its slice's
// end where it was (the pause does not delay the goroutine's work, a simplification).
struct GoSlice : sim::ListNode {
  const HostCpu::Job* job = nullptr;  // nullptr: it runs on a core of its own (background)
  bool counted = false;               // a background thread of the HostCpu (cpu_contention)
  bool parked = false;                // a counted slice whose M stopped for a STW
};

class GoProcess {
 public:
  using CrashCallback = std::function<void(CrashReason, const std::string& message)>;
  using RestartCallback = std::function<void()>;

  // `machine`: the cores of a machine this process shares with others (their count and
  // scheduler are the machine's, not cfg's), where its death frees only its own threads;
  // null = a host of its own, made from cfg.
  GoProcess(sim::Simulation& sim, GoConfig cfg, HostCpu* machine = nullptr);
  ~GoProcess();
  GoProcess(const GoProcess&) = delete;
  GoProcess& operator=(const GoProcess&) = delete;

  // ---- Go code
  struct GoroutineAwaiter;
  // Registers the calling process as a goroutine. Throws std::logic_error if the process is down.
  // `stack_used`: the stack it uses (< 0: the config's stack_used_bytes).
  GoroutineAwaiter goroutine(std::int64_t stack_used = -1);
  // `go f()`: spawns `body` as a new counted goroutine.
  sim::ProcessHandle go(sim::Task<> body, std::int64_t stack_used = -1);
  // `go f()` for a goroutine written as a process of its own, whose first statement is
  // `auto g = co_await go.enter(inc)` with `inc` the incarnation() it was started in: the same
  // goroutine as go(body) with one coroutine frame fewer (a handler's request goroutine, which
  // an overload parks by the hundred thousand).
  sim::ProcessHandle go_process(sim::Process body);
  // That first statement: registers the goroutine as goroutine() does, or unwinds it when the
  // process it was started in has died since (as go()'s own wrapper does).
  GoroutineAwaiter enter(std::uint64_t incarnation, std::int64_t stack_used = -1);
  // The same, as the starter an errgroup::Group takes: `errgroup::Group g(sim, go.launcher());`
  std::function<void(sim::Task<>)> launcher() {
    return [this](sim::Task<> body) { go(std::move(body)); };
  }
  // Runs `work` of Go code: waits for a P, holds it (preempted every preempt_quantum).
  sim::Task<> cpu(sim::Duration work);
  // A blocking syscall lasting `d` once entered (needs a P to enter, keeps its M throughout).
  sim::Task<> syscall(sim::Duration d);
  // A syscall that computes in the kernel for `work` of CPU (bind(2) searching the port range):
  // its M is runnable throughout and shares the host's cores (HostCpu), so under contention it
  // lasts longer than `work`. The same as syscall(work) with cpu_contention off.
  sim::Task<> syscall_cpu(sim::Duration work);
  // write(2) of `bytes` to a blocking fd; the target says when the call returns.
  sim::Task<> syscall_write(WriteTarget& target, std::int64_t bytes);
  // Allocates `bytes` of new objects (garbage unless retained); during a GC mark the caller
  // may be drafted into a mark assist (CPU on a P).
  // Counted at once; only an allocation that owes a mark assist suspends (AllocAwaiter).
  struct AllocAwaiter;
  AllocAwaiter alloc(std::int64_t bytes);
  AllocAwaiter alloc_live(std::int64_t bytes);  // alloc + retain
  // Allocated objects become reachable; bytes beyond the heap in use count as allocated now
  // (how an owner sets a baseline live set). No-op while the process is down.
  void retain(std::int64_t bytes);
  void release(std::int64_t bytes);  // reachable objects become garbage
  // Allocates `bytes` of reachable objects now, outside any goroutine's flow (a library's
  // buffers made by code the model does not run as Go code: no assist). No-op while down.
  void alloc_retained_now(std::int64_t bytes);

  // ---- Owner
  void on_crash(CrashCallback cb) { on_crash_ = std::move(cb); }
  // Called after every change of this process's memory once its own limit is checked (a
  // machine's memory, shared with other processes, checks the sum; scenarios/machine.hpp).
  void set_memory_watch(std::function<void()> watch) { memory_watch_ = std::move(watch); }
  void on_restart(RestartCallback cb) { on_restart_ = std::move(cb); }
  // Called after newm() made an OS thread the process lives on with (threads() counts it).
  void on_thread_created(std::function<void()> cb) { on_thread_created_ = std::move(cb); }
  // Kills the process (kubectl delete, SIGKILL): same path as an OOM kill.
  void kill(CrashReason reason = CrashReason::kExternal);
  // The kubelet evicts the pod (hard threshold: no grace period); its replacement, a new pod,
  // runs `replaced_after` later.
  void evict(sim::Duration replaced_after);
  bool alive() const { return alive_; }
  std::uint64_t incarnation() const { return incarnation_; }
  // Fault hooks (fuzz). A new container memory limit applies at once: RSS above it is an OOM
  // kill now, through the same check as every allocation (0 = no limit).
  void set_container_memory_limit(std::int64_t bytes);
  // Stops the world (as a GC's STW phase does) until called with false: no goroutine is given
  // a P, running ones give theirs up at their next preemption point. The pause is recorded
  // among the STW pauses when it ends; a crash ends it (the next process starts running).
  void set_world_stopped(bool stopped);
  bool world_stopped() const { return stw_ || forced_stw_; }
  std::uint64_t forced_stws() const { return forced_stws_; }  // forced pauses that ended

  // ---- Gauges and counters
  const GoConfig& config() const { return cfg_; }
  sim::Simulation& sim() const { return sim_; }
  int gomaxprocs() const { return procs_; }
  std::int64_t goroutines() const { return goroutines_; }
  std::int64_t threads() const { return alive_ ? m_total_ + 1 : 0; }  // Ms plus sysmon
  std::int64_t ms_total() const { return m_total_; }
  std::int64_t ms_idle() const { return m_idle_; }
  std::int64_t ms_in_syscall() const { return m_syscall_; }
  std::int64_t ps_running() const { return ps_running_; }
  std::int64_t ps_idle() const { return ps_idle_; }
  std::int64_t ps_in_syscall() const { return ps_syscall_; }
  std::int64_t run_queue() const { return runq_len_; }
  // OS threads wanting a core: Ms running Go code plus Ms computing in the kernel (HostCpu).
  std::int64_t runnable_threads() const { return alive_ ? cpu_->runnable() : 0; }
  // The most runnable threads at once since this GoProcess was created, across restarts.
  std::int64_t runnable_threads_peak() const { return cpu_->runnable_peak(); }
  std::int64_t heap_live_bytes() const { return heap_live_; }
  std::int64_t heap_alloc_bytes() const { return heap_alloc_; }
  std::int64_t heap_peak_bytes() const { return heap_peak_; }
  std::int64_t heap_goal_bytes() const;
  std::int64_t stack_bytes() const { return alive_ ? stacks_total_ : 0; }
  // The stack a new goroutine starts with (Go 1.19 startingStackSize).
  std::int64_t starting_stack_bytes() const { return starting_stack_; }
  std::int64_t thread_bytes() const;
  std::int64_t rss_bytes() const;
  std::int64_t peak_rss_bytes() const { return rss_peak_; }
  std::uint64_t gc_cycles() const { return gc_cycles_; }
  bool gc_running() const { return phase_ != GcPhase::kOff; }
  bool gc_limiter_enabled() const { return limiter_enabled_; }
  // GC CPU since process start over GOMAXPROCS × uptime (Go's MemStats.GCCPUFraction).
  double gc_cpu_fraction();
  sim::Duration gc_cpu_ns();  // cumulative GC CPU (mark workers, assists, STW × Ps)
  sim::Duration cpu_busy_ns() const { return cpu_busy_ns_; }  // goroutine CPU granted
  sim::Duration last_stw() const { return stw_last_; }
  // The last concurrent mark phase, from its start to the stop for mark termination.
  sim::Duration last_mark() const { return mark_last_; }
  sim::Duration peak_stw() const { return stw_peak_; }
  const sim::Histogram& stw_pauses() const { return stw_hist_; }
  const sim::Histogram& run_queue_wait() const { return runq_wait_hist_; }
  std::uint64_t syscalls() const { return syscalls_; }
  std::uint64_t handoffs() const { return handoffs_; }
  // Times a parked sysmon was woken (by a syscall, an M taking an idle P, or the end of an STW)
  // and so started again at its shortest sleep.
  std::uint64_t sysmon_wakes() const { return sysmon_wakes_; }
  std::uint64_t oom_kills() const { return oom_kills_; }
  std::uint64_t evictions() const { return evictions_; }
  std::uint64_t crashes() const { return crashes_; }
  std::uint64_t restarts() const { return restarts_; }
  // How long the last crash waited for its restart (the kubelet's back-off, or restart_delay).
  sim::Duration last_restart_delay() const { return last_restart_delay_; }
  const std::string& last_crash_message() const { return last_crash_; }
  // Every P is idle, running, in a syscall or marking; every M is idle, in a syscall or
  // running a P; no gauge is negative. Tests assert it after and during runs.
  bool invariants_hold() const;

  // ---- For awaiters and guards (not for simulated code)
  struct RunAwaiter;
  void goroutine_enter(Goroutine& g);
  void goroutine_exit(Goroutine& g);
  // The M that now runs the goroutine, or nothing: no idle P, or the process crashed.
  std::optional<HostCpu::Arrival> try_grant_idle_p();
  void enqueue(RunWaiter& w);
  void unqueue(RunWaiter& w);
  void record_runq_wait(sim::Duration d) { runq_wait_hist_.record(d); }
  void release_p();
  void throw_if_gone(std::uint64_t inc) const;
  sim::Simulation& simulation() { return sim_; }
  // The host's process track in the attached tracer (0: none, or filtered out).
  std::uint32_t trace_pid() const;

 private:
  enum class GcPhase { kOff, kSweepTermination, kMark, kMarkTermination };
  struct SysmonEvent : sim::Handler {
    GoProcess* go = nullptr;
    void on_event(sim::Simulation&) override { go->sysmon_pass(); }
  };

  void reset_process();
  bool can_run_more() const;
  bool gc_wants_worker() const;
  // An M for a P: an idle one woken (startm's mget) or a new thread (newm); nothing if the
  // process crashed (thread exhaustion, OOM kill).
  std::optional<HostCpu::Arrival> acquire_m();
  void grant_front(HostCpu::Arrival arrival);
  void p_becomes_free();
  void dispatch();
  void enter_syscall(SyscallRecord& rec);
  bool exit_syscall(SyscallRecord& rec);  // true: the goroutine must wait for a P
  void retake(SyscallRecord& rec);
  void kick_sysmon();
  void sysmon_pass();
  void p_goes_idle(std::int64_t n = 1);
  void p_leaves_idle();
  void wake_parked_sysmon();
  void sysmon_after_stw(sim::Time stw_began);
  // `prologue`: Go code on the P before the call; `kernel_cpu`: the call computes on a core.
  sim::Task<> syscall_impl(WriteTarget* target, std::int64_t bytes, sim::Duration d,
                           bool kernel_cpu, sim::Duration prologue);
  sim::Task<> run_on_p(sim::Duration work, bool gc_assist);
  // co_await on_core(slice, inc): one slice of Go code by an M that holds a P, on the host's
  // cores (HostCpu). An awaiter, not a coroutine: it runs for every slice of Go code.
  // `arrival`: how the M comes to this slice — woken from idle, new, or going on from work it
  // ran on the host's cores until this instant (then it keeps its core).
  struct CoreSliceAwaiter;
  // `go_code`: a goroutine's slice on its P (a stop-the-world looks for it), not a GC thread's.
  CoreSliceAwaiter on_core(sim::Duration slice, std::uint64_t inc,
                           HostCpu::Arrival arrival = HostCpu::Arrival::kQueued,
                           bool go_code = false);
  // An allocation's accounting (heap, GC trigger, memory limit): the assist debt it leaves.
  double alloc_account(std::int64_t bytes, bool keep);
  bool assist_owed(double debt) const {
    return debt >= 1.0 && phase_ == GcPhase::kMark && !limiter_enabled_ && mark_work_left_ns_ > 0;
  }
  sim::Task<> assist(double debt);  // the mark assist an allocation owes, on a P
  void restart(std::uint64_t inc);

  // Trace hooks (trace_hooks.cpp): observe only.
  void trace_gc_phase(GcPhase next);

  // GC
  std::int64_t nonheap_bytes() const;
  std::int64_t runtime_nonheap_bytes() const;  // what GOMEMLIMIT counts besides the heap
  std::int64_t trigger_bytes() const;
  void maybe_start_gc();
  void gc_advance();
  void begin_stw(GcPhase phase, bool by_worker = false);
  void spawn_gc(sim::Process p);  // a GC thread's work (cancelled by a crash)
  sim::Process preempt_ack(std::uint64_t inc, std::uint64_t stw, bool on_a_core);
  sim::Process stw_retries(std::uint64_t inc, std::uint64_t stw);
  sim::Process stw_work(std::uint64_t inc, std::uint64_t stw, bool woken);
  void maybe_world_stopped();
  void end_stw();
  void start_mark();
  void add_gc_worker();
  sim::Process mark_worker(std::uint64_t inc, std::uint64_t cycle, double duty);
  void mark_progress(double ns, bool background);  // `ns` of mark work done
  void mark_done_check(bool by_worker);
  void finish_mark();
  void compute_starting_stack();
  void update_limiter();
  double assist_debt(std::int64_t bytes);
  void assist_done(double ns);
  void account_gc(double gc_ns);
  void check_memory();
  void crash(CrashReason reason);

  sim::Simulation& sim_;
  GoConfig cfg_;
  int procs_;
  int cpu_cap_;  // min(GOMAXPROCS, cores): Ps that can run at once
  sim::Kind kind_goroutine_;
  CrashCallback on_crash_;
  std::function<void()> memory_watch_;
  RestartCallback on_restart_;
  std::function<void()> on_thread_created_;
  bool alive_ = true;
  std::uint64_t incarnation_ = 1;
  sim::Time started_at_ = 0;

  // Scheduler
  std::int64_t goroutines_ = 0;
  sim::IntrusiveList<Goroutine> all_g_;
  sim::IntrusiveList<RunWaiter> runq_;
  std::int64_t runq_len_ = 0;
  sim::IntrusiveList<SyscallRecord> in_syscall_;  // oldest first
  sim::IntrusiveList<GoSlice> go_slices_;         // Go code running now, one per M
  std::int64_t ps_idle_ = 0;
  std::int64_t ps_running_ = 0;
  std::int64_t ps_syscall_ = 0;
  std::int64_t ps_gc_ = 0;  // Ps running dedicated mark workers
  std::int64_t m_total_ = 0;
  std::int64_t m_idle_ = 0;
  std::int64_t m_syscall_ = 0;
  SysmonClock sysmon_;
  SysmonEvent sysmon_event_;
  sim::Time sysmon_next_ = sim::kTimeMax;
  sim::Time all_idle_since_ = sim::kTimeMax;  // every P idle since then (kTimeMax: not now)
  bool sysmon_parked_ = false;                // in its deep sleep on sched.sysmonnote
  std::uint64_t sysmon_wakes_ = 0;
  bool stw_ = false;
  sim::Time stw_began_ = 0;
  sim::Duration cpu_busy_ns_ = 0;
  std::uint64_t syscalls_ = 0;
  std::uint64_t handoffs_ = 0;
  sim::Histogram runq_wait_hist_;
  std::unique_ptr<HostCpu> own_cpu_;  // null on a shared machine
  HostCpu* cpu_;                      // own_cpu_, or the machine's
  std::int64_t background_threads_ = 0;  // this process's background threads on cpu_
  // A thread of this process starts (+1) or stops (-1) taking a core without being a job.
  void add_background(int delta) {
    cpu_->add_background(delta);
    background_threads_ += delta;
  }

  // Memory and GC
  std::int64_t heap_live_ = 0;
  std::int64_t stacks_total_ = 0;    // goroutine stacks allocated
  std::int64_t stack_used_sum_ = 0;  // stack in use by the live goroutines
  std::int64_t starting_stack_ = 0;  // startingStackSize
  std::int64_t scanned_used_ = 0;    // what the current mark's stack scan saw in use
  std::int64_t scanned_stacks_ = 0;
  std::int64_t heap_alloc_ = 0;
  std::int64_t heap_marked_ = 0;
  std::int64_t heap_peak_ = 0;
  std::int64_t rss_peak_ = 0;
  std::int64_t alloc_at_mark_start_ = 0;
  std::int64_t last_mark_alloc_ = -1;  // bytes allocated during the last mark; -1 = none yet
  GcPhase phase_ = GcPhase::kOff;
  sim::Kind kind_gc_ = 0;
  std::vector<sim::ProcessHandle> gc_procs_;  // GC threads' work in flight
  std::uint64_t stw_id_ = 0;                  // which stop-the-world is in progress
  bool stopping_ = false;                     // waiting for running Ps to stop
  std::int64_t acks_left_ = 0;                // Ps whose Ms have yet to take the request
  bool waited_ = false;                       // the stopping M slept on sched.stopnote
  std::uint64_t mark_id_ = 0;                 // which mark phase the workers serve
  sim::Time mark_began_ = 0;
  sim::Duration mark_last_ = 0;
  int dedicated_workers_ = 0;
  double fractional_util_ = 0;
  double mark_work_left_ns_ = 0;
  double bg_credit_ns_ = 0;
  sim::Time gc_updated_at_ = 0;
  double gc_cpu_total_ns_ = 0;
  double limiter_fill_ns_ = 0;
  sim::Time limiter_updated_at_ = 0;
  double gc_cpu_at_limiter_update_ = 0;
  bool limiter_enabled_ = false;
  std::uint64_t gc_cycles_ = 0;
  sim::Duration stw_last_ = 0;
  sim::Duration stw_peak_ = 0;
  sim::Histogram stw_hist_;
  bool forced_stw_ = false;  // set_world_stopped(true)
  sim::Time forced_stw_since_ = 0;
  std::uint64_t forced_stws_ = 0;
  sim::Time trace_phase_since_ = 0;  // when the current GC phase (and cycle) began
  sim::Time trace_cycle_since_ = 0;

  // Crashes
  std::uint64_t oom_kills_ = 0;
  std::uint64_t evictions_ = 0;
  sim::Duration replacement_delay_ = 0;  // an eviction's: when its replacement pod runs
  std::uint64_t crashes_ = 0;
  std::uint64_t restarts_ = 0;
  CrashLoopBackOff backoff_{cfg_.restart_policy};
  sim::Duration last_restart_delay_ = 0;
  std::string last_crash_;
};

struct GoProcess::GoroutineAwaiter {
  GoProcess* go;
  std::int64_t stack_used;
  bool check_incarnation = false;  // enter(): started in this incarnation?
  std::uint64_t incarnation = 0;
  sim::ProcState* p = nullptr;
  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) noexcept {
    p = sim::process_of(h);
    return false;  // never suspends: it only learns which process is asking
  }
  Goroutine await_resume() {
    if (check_incarnation && go->incarnation() != incarnation) {
      throw sim::Cancelled{};  // started by a process that crashed before this goroutine ran
    }
    return Goroutine(go, p, stack_used);
  }
};

// With a core free the slice runs at full speed to its end, even if the host fills up
// meanwhile (a slice is at most one preemption quantum, usually µs), and counts as a runnable
// thread for everyone else. On a full host it shares (or waits for a core) from its start.
struct GoProcess::CoreSliceAwaiter {
  GoProcess* go;
  std::uint64_t inc;
  bool shared;   // a HostCpu job from its start
  bool counted;  // a background thread of the HostCpu while it sleeps its slice
  bool tracked;  // Go code: listed in go_slices_ while it runs
  HostCpu::RunAwaiter job;
  sim::SleepAwaiter sleep;
  GoSlice node;

  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (counted) go->add_background(1);
    if (tracked) {
      node.job = shared ? &job.job : nullptr;
      node.counted = counted;
      go->go_slices_.push_back(node);
    }
    return shared ? job.await_suspend(h) : sleep.await_suspend(h);
  }
  void await_resume() {
    if (node.linked()) node.unlink();
    if (counted && !node.parked && inc == go->incarnation_ && go->alive_) {
      go->add_background(-1);
    }
    if (shared) {
      job.await_resume();
    } else {
      sleep.await_resume();
    }
  }
};

// An allocation as Go code sees it. Most owe no mark assist and never suspend, so they need no
// coroutine frame (a frame per allocation was a measurable share of the April run's cost); one
// that owes an assist runs it as a Task awaited in place. Same order of effects as a Task whose
// body did the accounting first: both run at the co_await, and an exception (the process died)
// leaves the co_await expression either way.
struct GoProcess::AllocAwaiter {
  GoProcess* go;
  std::int64_t bytes;
  bool keep;
  double debt = 0;
  std::optional<sim::Task<>> assist;
  std::optional<sim::Task<>::Awaiter> inner;

  bool await_ready() {
    debt = go->alloc_account(bytes, keep);
    return !go->assist_owed(debt);
  }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) {
    assist.emplace(go->assist(debt));
    inner.emplace(std::move(*assist).operator co_await());
    return inner->await_suspend(h);
  }
  void await_resume() {
    if (inner) inner->await_resume();
  }
};

inline GoProcess::CoreSliceAwaiter GoProcess::on_core(sim::Duration slice, std::uint64_t inc,
                                                      HostCpu::Arrival arrival, bool go_code) {
  // A core this M still holds counts as taken: the slice is then a job that takes it back.
  const bool shared = cfg_.cpu_contention && cpu_->busy();
  return CoreSliceAwaiter{this, inc, shared, cfg_.cpu_contention && !shared, go_code,
                          cpu_->run(slice, arrival, this),
                          sim::sleep(slice), {}};
}

struct GoProcess::RunAwaiter {
  RunAwaiter(GoProcess* g, std::uint64_t incarnation) : go(g), inc(incarnation) {}
  GoProcess* go;
  std::uint64_t inc;
  RunWaiter w;
  sim::ProcState* p = nullptr;
  sim::Time queued_at = 0;

  bool await_ready() {
    go->throw_if_gone(inc);
    auto m = go->try_grant_idle_p();
    if (!m) return false;
    w.arrival = *m;
    return true;
  }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    // Killable: a crash empties the run queue before it kills, and await_resume then throws
    // at throw_if_gone before anything else.
    if (!sim::park_killable(h, p)) {
      return false;
    }
    w.token = sim::WakeToken{p, p->gen};
    queued_at = go->simulation().now();
    go->enqueue(w);
    return true;
  }
  // Returns how the M running the goroutine now came to it (HostCpu::Arrival).
  HostCpu::Arrival await_resume() {
    if (p == nullptr) {
      return w.arrival;  // an idle P was free
    }
    go->throw_if_gone(inc);
    if (!w.granted) {
      go->unqueue(w);
      sim::throw_if_cancelled(p);
      return w.arrival;
    }
    go->record_runq_wait(go->simulation().now() - queued_at);
    if (p->cancel_requested) {
      go->release_p();
      sim::throw_if_cancelled(p);
    }
    return w.arrival;
  }
};

}  // namespace goruntime
