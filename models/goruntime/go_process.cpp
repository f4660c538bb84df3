#include "models/goruntime/go_process.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/on_unwind.hpp"
#include "sim/trace_span.hpp"

namespace goruntime {

std::string_view crash_message(CrashReason r) {
  switch (r) {
    case CrashReason::kOomKill:
      return "OOMKilled: container memory limit exceeded (SIGKILL)";
    case CrashReason::kThreadExhaustion:
      return "runtime: program exceeds 10000-thread limit\nfatal error: thread exhaustion";
    case CrashReason::kExternal:
      return "killed (SIGKILL)";
    case CrashReason::kDeploy:
      return "replaced by a deploy (SIGTERM)";
    case CrashReason::kNodeOomKill:
      return "Out of memory: Killed process (the node's memory; the kernel's OOM killer, SIGKILL)";
    case CrashReason::kEvicted:
      return "Evicted: The node was low on resource: memory (the kubelet, SIGKILL)";
  }
  return "unknown";
}

// ---------------------------------------------------------------- goroutines

Goroutine::Goroutine(GoProcess* owner, sim::ProcState* self, std::int64_t stack_used)
    : owner_(owner), incarnation_(owner->incarnation()), self_(self),
      sim_(&owner->simulation()), actor_(self->id),
      stack_used_(stack_used >= 0 ? stack_used : owner->config().stack_used_bytes) {
  if (!owner->alive()) {
    owner_ = nullptr;
    throw std::logic_error("goruntime: goroutine started while process '" + owner->config().name +
                           "' is down (check alive())");
  }
  owner->goroutine_enter(*this);
  if (sim::Tracer* t = sim_->tracer()) {
    t->bind_lane(actor_, owner->trace_pid(), "goroutine", "goroutine", "goroutine");
  }
}

Goroutine::~Goroutine() {
  if (owner_ != nullptr) {
    owner_->goroutine_exit(*this);
  }
  if (sim::Tracer* t = sim_->tracer()) t->unbind_lane(actor_);
}

namespace {
sim::Process goroutine_main(GoProcess& go, std::uint64_t incarnation, sim::Task<> body,
                            std::int64_t stack_used) {
  auto g = co_await go.enter(incarnation, stack_used);
  co_await std::move(body);
}
}  // namespace

GoProcess::GoProcess(sim::Simulation& sim, GoConfig cfg, HostCpu* machine)
    : sim_(sim),
      cfg_(std::move(cfg)),
      sysmon_(cfg_.sysmon_tick_min, cfg_.sysmon_tick_max, cfg_.sysmon_idle_ticks_before_backoff,
              cfg_.sysmon_timer_slack),
      own_cpu_(machine ? nullptr
                       : std::make_unique<HostCpu>(sim, std::max(1, cfg_.cores),
                                                   cfg_.core_sharing, cfg_.time_slice)),
      cpu_(machine ? machine : own_cpu_.get()) {
  if (machine) cfg_.cores = machine->cores();
  cfg_.validate();
  procs_ = cfg_.procs();
  cpu_cap_ = std::min(procs_, cfg_.cores);
  kind_goroutine_ = sim_.intern_kind("go.goroutine");
  sysmon_event_.go = this;
  sysmon_event_.kind = sim_.intern_kind("go.sysmon");
  sysmon_event_.actor_id = sim_.new_actor_id();
  if (own_cpu_) own_cpu_->set_actor(sysmon_event_.actor_id);
  kind_gc_ = sim_.intern_kind("go.gc");
  reset_process();
}

GoProcess::~GoProcess() {
  // Guards in frames that outlive us must not call back.
  all_g_.for_each([](Goroutine& g) {
    g.unlink();
    g.owner_ = nullptr;
  });
}

void GoProcess::reset_process() {
  started_at_ = sim_.now();
  goroutines_ = 0;
  runq_len_ = 0;
  ps_idle_ = procs_;
  all_idle_since_ = sim_.now();
  sysmon_parked_ = false;
  ps_running_ = ps_syscall_ = ps_gc_ = 0;
  m_total_ = cfg_.initial_threads - 1;  // threads() adds sysmon
  m_idle_ = m_total_;
  m_syscall_ = 0;
  sysmon_.reset(sim_.now());
  sysmon_next_ = sim::kTimeMax;
  stw_ = false;
  forced_stw_ = false;
  cpu_busy_ns_ = 0;
  syscalls_ = handoffs_ = sysmon_wakes_ = 0;
  runq_wait_hist_.reset();
  heap_live_ = heap_alloc_ = heap_marked_ = heap_peak_ = 0;
  stacks_total_ = stack_used_sum_ = scanned_used_ = scanned_stacks_ = 0;
  starting_stack_ = cfg_.stack_min_bytes;
  rss_peak_ = 0;
  alloc_at_mark_start_ = 0;
  last_mark_alloc_ = -1;
  trace_gc_phase(GcPhase::kOff);
  phase_ = GcPhase::kOff;
  stopping_ = false;
  acks_left_ = 0;
  mark_last_ = 0;
  dedicated_workers_ = 0;
  fractional_util_ = 0;
  mark_work_left_ns_ = bg_credit_ns_ = 0;
  gc_updated_at_ = limiter_updated_at_ = sim_.now();
  gc_cpu_total_ns_ = limiter_fill_ns_ = gc_cpu_at_limiter_update_ = 0;
  limiter_enabled_ = false;
  gc_cycles_ = 0;
  stw_last_ = stw_peak_ = 0;
  stw_hist_.reset();
}

GoProcess::GoroutineAwaiter GoProcess::goroutine(std::int64_t stack_used) {
  return GoroutineAwaiter{this, stack_used};
}

GoProcess::GoroutineAwaiter GoProcess::enter(std::uint64_t incarnation, std::int64_t stack_used) {
  return GoroutineAwaiter{this, stack_used, true, incarnation};
}

sim::ProcessHandle GoProcess::go(sim::Task<> body, std::int64_t stack_used) {
  return go_process(goroutine_main(*this, incarnation_, std::move(body), stack_used));
}

sim::ProcessHandle GoProcess::go_process(sim::Process body) {
  if (!alive_) {
    throw std::logic_error("goruntime: go statement while process '" + cfg_.name +
                           "' is down (check alive())");
  }
  return sim_.spawn(std::move(body), kind_goroutine_);
}

namespace {
// round2: the smallest power of two >= n.
std::int64_t round_up_pow2(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}
}  // namespace

void GoProcess::goroutine_enter(Goroutine& g) {
  all_g_.push_back(g);
  ++goroutines_;
  // newproc1 allocates startingStackSize; a goroutine that needs more than its stack minus the
  // guard grows it by copying, doubling until it fits (newstack, copystack).
  g.stack_bytes_ = std::max(starting_stack_, round_up_pow2(g.stack_used_ + cfg_.stack_guard_bytes));
  stacks_total_ += g.stack_bytes_;
  stack_used_sum_ += g.stack_used_;
  check_memory();
}

void GoProcess::goroutine_exit(Goroutine& g) {
  g.unlink();
  g.owner_ = nullptr;
  if (g.incarnation_ == incarnation_ && alive_) {
    --goroutines_;
    stacks_total_ -= g.stack_bytes_;  // gfput: the stack goes back to the stack pool
    stack_used_sum_ -= g.stack_used_;
  }
}

void GoProcess::throw_if_gone(std::uint64_t inc) const {
  if (inc != incarnation_ || !alive_) {
    throw sim::Cancelled{};
  }
}

// ---------------------------------------------------------------- Ps and Ms

bool GoProcess::can_run_more() const {
  return alive_ && !world_stopped() && ps_idle_ > 0 && ps_running_ + ps_gc_ < cpu_cap_;
}

bool GoProcess::gc_wants_worker() const {
  return phase_ == GcPhase::kMark && ps_gc_ < dedicated_workers_;
}

std::optional<HostCpu::Arrival> GoProcess::acquire_m() {
  if (m_idle_ > 0) {
    --m_idle_;
    return HostCpu::Arrival::kWoken;  // startm's mget: an idle M
  }
  ++m_total_;  // newm(): a fresh OS thread with its g0 and signal stacks
  if (threads() > cfg_.max_threads) {
    crash(CrashReason::kThreadExhaustion);
    return std::nullopt;
  }
  check_memory();
  if (!alive_) return std::nullopt;
  if (on_thread_created_) on_thread_created_();
  return HostCpu::Arrival::kQueued;
}

std::optional<HostCpu::Arrival> GoProcess::try_grant_idle_p() {
  if (!runq_.empty() || !can_run_more()) {
    return std::nullopt;  // FIFO: queued goroutines go first
  }
  auto m = acquire_m();
  if (!m) {
    return std::nullopt;
  }
  p_leaves_idle();
  ++ps_running_;
  return m;
}

void GoProcess::grant_front(HostCpu::Arrival arrival) {
  RunWaiter& w = runq_.pop_front();
  --runq_len_;
  w.granted = true;
  w.arrival = arrival;
  ++ps_running_;
  sim_.wake(w.token);
}

void GoProcess::enqueue(RunWaiter& w) {
  runq_.push_back(w);
  ++runq_len_;
  kick_sysmon();
}

void GoProcess::unqueue(RunWaiter& w) {
  if (w.linked()) {
    w.unlink();
    --runq_len_;
  }
}

void GoProcess::release_p() {
  --ps_running_;
  p_becomes_free();
  if (stopping_) maybe_world_stopped();
}

// A P and the M running it just finished their goroutine: schedule() on that M.
void GoProcess::p_becomes_free() {
  if (gc_wants_worker()) {
    add_gc_worker();
    return;
  }
  if (!world_stopped() && !runq_.empty() && ps_running_ + ps_gc_ < cpu_cap_) {
    grant_front(HostCpu::Arrival::kContinues);  // this M goes on to the next goroutine
    return;
  }
  p_goes_idle();
  ++m_idle_;  // the M parks (stopm); Go keeps it, so the thread count never drops
}

void GoProcess::dispatch() {
  while (alive_ && gc_wants_worker() && can_run_more()) {
    if (!acquire_m()) {
      return;
    }
    p_leaves_idle();
    add_gc_worker();
  }
  while (alive_ && !runq_.empty() && can_run_more()) {
    auto m = acquire_m();
    if (!m) {
      return;
    }
    p_leaves_idle();
    grant_front(*m);
  }
}

// sysmon's deep sleep (runtime/proc.go sysmon): at a tick that finds every P idle (or the world
// stopped) it sleeps on sched.sysmonnote instead of usleep. The next goroutine to enter a
// syscall, an M leaving one for an idle P, or the end of a stop-the-world wakes it, and a
// woken sysmon starts again at its shortest sleep, 20 µs requested, ~70 µs with timer slack
// ("a bet that ... it may need to do it again shortly").
// The model has no runtime timers, so a parked sysmon waits for one of those wakes.
void GoProcess::p_goes_idle(std::int64_t n) {
  ps_idle_ += n;
  if (ps_idle_ == procs_ && all_idle_since_ == sim::kTimeMax) {
    all_idle_since_ = sim_.now();
  }
}

void GoProcess::p_leaves_idle() {
  if (all_idle_since_ != sim::kTimeMax) {
    // A sysmon tick inside the all-idle spell found npidle == gomaxprocs and parked.
    if (cfg_.sysmon_parks_when_idle &&
        sysmon_.next_tick_after(all_idle_since_ - 1) < sim_.now()) {
      sysmon_parked_ = true;
    }
    all_idle_since_ = sim::kTimeMax;
  }
  --ps_idle_;
}

void GoProcess::wake_parked_sysmon() {
  if (sysmon_parked_) {
    sysmon_parked_ = false;
    sysmon_.reset(sim_.now());
    ++sysmon_wakes_;
  }
}

void GoProcess::sysmon_after_stw(sim::Time stw_began) {
  // startTheWorldWithSema wakes a sysmon that parked because gcwaiting was set.
  // A tick during the pause sees gcwaiting and parks, whatever the load.
  if (sysmon_.next_tick_after(stw_began - 1) < sim_.now()) {
    sysmon_parked_ = true;
  }
  wake_parked_sysmon();
}

// gcComputeStartingStackSize, at mark termination: the average stack in use among the stacks
// this cycle scanned, plus the guard, as a power of two in [stackMin, maxstacksize].
void GoProcess::compute_starting_stack() {
  if (!cfg_.adaptive_stack_start) return;
  if (scanned_stacks_ == 0) {
    starting_stack_ = cfg_.stack_min_bytes;
    return;
  }
  std::int64_t avg = scanned_used_ / scanned_stacks_ + cfg_.stack_guard_bytes;
  avg = std::clamp<std::int64_t>(avg, cfg_.stack_min_bytes, kGiB);
  starting_stack_ = round_up_pow2(avg);
}

bool GoProcess::invariants_hold() const {
  bool non_negative = ps_idle_ >= 0 && ps_running_ >= 0 && ps_syscall_ >= 0 && ps_gc_ >= 0 &&
                      m_idle_ >= 0 && m_syscall_ >= 0 && goroutines_ >= 0 && runq_len_ >= 0 &&
                      heap_live_ >= 0 && heap_alloc_ >= heap_live_;
  if (!alive_) {
    return non_negative && m_total_ == 0 && goroutines_ == 0;
  }
  return non_negative && ps_idle_ + ps_running_ + ps_syscall_ + ps_gc_ == procs_ &&
         m_total_ == m_idle_ + m_syscall_ + ps_running_ + ps_gc_ && ps_syscall_ <= m_syscall_ &&
         ps_running_ + ps_gc_ <= cpu_cap_;
}

// ---------------------------------------------------------------- syscalls and sysmon

void GoProcess::enter_syscall(SyscallRecord& rec) {
  --ps_running_;
  ++ps_syscall_;
  ++m_syscall_;
  ++syscalls_;
  rec.since = sim_.now();
  rec.retaken = false;
  in_syscall_.push_back(rec);
  if (stopping_) maybe_world_stopped();  // entersyscall under gcwaiting: its P stops
  wake_parked_sysmon();
  kick_sysmon();
}

bool GoProcess::exit_syscall(SyscallRecord& rec) {
  --m_syscall_;
  if (!rec.retaken) {
    // exitsyscall fast path: the P is still ours.
    rec.unlink();
    --ps_syscall_;
    ++ps_running_;
    release_p();
    return false;
  }
  if (can_run_more()) {
    // exitsyscallfast: this M grabs an idle P (and wakes a sysmon that slept meanwhile).
    p_leaves_idle();
    wake_parked_sysmon();
    ++ps_running_;
    release_p();
    return false;
  }
  ++m_idle_;  // no P: the goroutine goes to the global run queue and the M parks
  return true;
}

// handoffp(): the P leaves the M stuck in the syscall and goes where there is work.
void GoProcess::retake(SyscallRecord& rec) {
  rec.unlink();
  rec.retaken = true;
  --ps_syscall_;
  ++handoffs_;
  if (gc_wants_worker() && ps_running_ + ps_gc_ < cpu_cap_) {
    if (acquire_m()) {
      add_gc_worker();
    }
    return;
  }
  if (!world_stopped() && !runq_.empty() && ps_running_ + ps_gc_ < cpu_cap_) {
    if (auto m = acquire_m()) {
      grant_front(*m);  // startm(): an idle M, or a new thread
    }
    return;
  }
  p_goes_idle();
}

void GoProcess::kick_sysmon() {
  if (in_syscall_.empty() || !alive_) {
    return;
  }
  sim::Time now = sim_.now();
  const SyscallRecord& oldest = in_syscall_.front();
  bool work = !runq_.empty() || gc_wants_worker();
  // retake() acts on the second tick that sees the same syscall (the first records its
  // syscalltick), so a syscall entered on a tick is retaken two ticks later, not one.
  sim::Time ready = work ? oldest.since + sysmon_.delay_at(now)
                         : oldest.since + cfg_.syscall_retake_idle - 1;
  sim::Time t = sysmon_.next_tick_after(std::max(now, ready));
  if (t < sysmon_next_ || sysmon_next_ < now) {
    sysmon_next_ = t;
    sim_.schedule_at(t, sysmon_event_);
  }
}

void GoProcess::sysmon_pass() {
  sim::Time now = sim_.now();
  if (now != sysmon_next_ || !alive_) {
    return;  // superseded by an earlier pass
  }
  sysmon_next_ = sim::kTimeMax;
  sim::Duration delay = sysmon_.delay_at(now);
  bool retook = false;
  while (alive_ && !in_syscall_.empty()) {
    SyscallRecord& oldest = in_syscall_.front();
    sim::Duration age = now - oldest.since;
    bool work = !runq_.empty() || gc_wants_worker();
    if (age <= delay || (!work && age < cfg_.syscall_retake_idle)) {
      break;  // younger syscalls are behind it
    }
    retake(oldest);
    retook = true;
  }
  if (!alive_) {
    return;
  }
  if (retook) {
    sysmon_.reset(now);
  }
  kick_sysmon();
}

// ---------------------------------------------------------------- Go code

sim::Task<> GoProcess::cpu(sim::Duration work) {
  if (work < 0) {
    throw std::invalid_argument("goruntime: cpu() work must be >= 0");
  }
  return run_on_p(work, false);
}

sim::Task<> GoProcess::run_on_p(sim::Duration work, bool gc_assist) {
  std::uint64_t inc = incarnation_;
  throw_if_gone(inc);
  // From asking for a P to giving it back: run-queue waits and preemptions included.
  sim::TraceSpan span =
      co_await sim::trace_span(sim_, gc_assist ? "GC assist" : "Go code", "go");
  const sim::Duration asked = work;
  bool holding = false;
  HostCpu::Arrival arrival = HostCpu::Arrival::kQueued;  // how the M comes to the next slice
  while (work > 0) {
    if (!holding) {
      arrival = co_await RunAwaiter(this, inc);
      holding = true;
    }
    sim::Duration slice = std::min(work, cfg_.preempt_quantum);
    {
      // Killed or unwound on its core: the P goes back, unless the process died with it.
      sim::OnUnwind give_back(sim_, [this, inc] {
        if (inc == incarnation_ && alive_) release_p();
      });
      co_await on_core(slice, inc, arrival, true);
      give_back.dismiss();
    }
    throw_if_gone(inc);
    work -= slice;
    if (!gc_assist) {
      cpu_busy_ns_ += slice;
    }
    // Preemption: give the P up if someone is waiting (the goroutine requeues at the back).
    if (work == 0 || !runq_.empty() || gc_wants_worker() || world_stopped()) {
      release_p();
      holding = false;
    }
    arrival = HostCpu::Arrival::kContinues;  // if it keeps its P, the M goes on
  }
  if (span) span.end({{"cpu_ns", asked}});
}

sim::Task<> GoProcess::syscall(sim::Duration d) {
  if (d < 0) {
    throw std::invalid_argument("goruntime: syscall() duration must be >= 0");
  }
  return syscall_impl(nullptr, 0, d, false, 0);
}

sim::Task<> GoProcess::syscall_cpu(sim::Duration work) {
  if (work < 0) {
    throw std::invalid_argument("goruntime: syscall_cpu() work must be >= 0");
  }
  return syscall_impl(nullptr, 0, work, cfg_.cpu_contention, cfg_.syscall_cpu_prologue);
}

sim::Task<> GoProcess::syscall_write(WriteTarget& target, std::int64_t bytes) {
  if (bytes < 0) {
    throw std::invalid_argument("goruntime: syscall_write() bytes must be >= 0");
  }
  return syscall_impl(&target, bytes, 0, false, 0);
}

sim::Task<> GoProcess::syscall_impl(WriteTarget* target, std::int64_t bytes, sim::Duration d,
                                    bool kernel_cpu, sim::Duration prologue) {
  std::uint64_t inc = incarnation_;
  // From asking for a P to entering the call, the call, and waiting for a P after it.
  sim::TraceSpan span = co_await sim::trace_span(
      sim_, target != nullptr ? "write(2)" : (kernel_cpu ? "syscall (kernel CPU)" : "syscall"),
      "syscall");
  // only a running goroutine can enter a syscall
  HostCpu::Arrival arrival = co_await RunAwaiter(this, inc);
  if (prologue > 0) {
    // The Go code leading to the call runs on this P first: a handed-off P reaches its next
    // bind(2) only once its new M has had a core.
    {
      sim::OnUnwind give_back(sim_, [this, inc] {
        if (inc == incarnation_ && alive_) release_p();
      });
      co_await on_core(prologue, inc, arrival, true);
      arrival = HostCpu::Arrival::kContinues;
      give_back.dismiss();
    }
    throw_if_gone(inc);
    cpu_busy_ns_ += prologue;
  }
  sim::Time now = sim_.now();
  sim::Time end = target != nullptr ? target->complete_write(now, bytes) : now + d;
  // A write waiting for room may be moved by a stall of the reader: the target times it.
  const bool blocked = target != nullptr && target->last_write_blocked();
  SyscallRecord rec;
  enter_syscall(rec);
  {
    // Killed or unwound in the call: the M leaves it, unless the process died with it.
    sim::OnUnwind leave(sim_, [this, inc, &rec] {
      if (inc == incarnation_ && alive_) exit_syscall(rec);
    });
    if (kernel_cpu) {
      co_await cpu_->run(d, arrival, this);  // the M goes on from its Go code into bind(2)
    } else if (blocked) {
      co_await target->wait_blocked(now, end);
    } else {
      co_await sim::sleep_until(end);
    }
    leave.dismiss();
  }
  throw_if_gone(inc);
  const bool lost_p = exit_syscall(rec);
  if (lost_p) {
    co_await RunAwaiter(this, inc);
    release_p();
  }
  if (span) span.end({{"bytes", bytes}, {"kernel_ns", d}, {"p_handed_off", lost_p ? 1 : 0}});
}

GoProcess::AllocAwaiter GoProcess::alloc(std::int64_t bytes) {
  if (bytes < 0) {
    throw std::invalid_argument("goruntime: alloc() bytes must be >= 0");
  }
  return AllocAwaiter{this, bytes, false, 0, {}, {}};
}

GoProcess::AllocAwaiter GoProcess::alloc_live(std::int64_t bytes) {
  if (bytes < 0) {
    throw std::invalid_argument("goruntime: alloc_live() bytes must be >= 0");
  }
  return AllocAwaiter{this, bytes, true, 0, {}, {}};
}

double GoProcess::alloc_account(std::int64_t bytes, bool keep) {
  std::uint64_t inc = incarnation_;
  throw_if_gone(inc);
  gc_advance();
  heap_alloc_ += bytes;
  if (keep) {
    heap_live_ += bytes;
  }
  heap_peak_ = std::max(heap_peak_, heap_alloc_);
  double debt = 0;
  if (phase_ == GcPhase::kMark) {
    debt = assist_debt(bytes);
  } else {
    maybe_start_gc();
  }
  check_memory();
  throw_if_gone(inc);
  return debt;
}

sim::Task<> GoProcess::assist(double debt) {
  while (assist_owed(debt)) {
    auto chunk = static_cast<sim::Duration>(
        std::min({debt, mark_work_left_ns_, static_cast<double>(cfg_.assist_chunk)}));
    if (chunk <= 0) {
      break;
    }
    co_await run_on_p(chunk, true);
    assist_done(static_cast<double>(chunk));
    debt -= static_cast<double>(chunk);
  }
}

void GoProcess::retain(std::int64_t bytes) {
  if (bytes < 0) {
    throw std::invalid_argument("goruntime: retain() bytes must be >= 0");
  }
  if (!alive_) {
    return;  // the dead process's memory is gone
  }
  heap_live_ += bytes;
  if (heap_live_ > heap_alloc_) {
    // More reachable than allocated: the difference is allocated now (a baseline live set).
    heap_alloc_ = heap_live_;
    heap_peak_ = std::max(heap_peak_, heap_alloc_);
    if (phase_ == GcPhase::kOff) {
      maybe_start_gc();
    }
    check_memory();
  }
}

void GoProcess::alloc_retained_now(std::int64_t bytes) {
  if (bytes < 0) {
    throw std::invalid_argument("goruntime: alloc_retained_now() bytes must be >= 0");
  }
  if (!alive_) return;
  gc_advance();
  heap_alloc_ += bytes;
  heap_live_ += bytes;
  heap_peak_ = std::max(heap_peak_, heap_alloc_);
  if (phase_ == GcPhase::kOff) maybe_start_gc();
  check_memory();
}

void GoProcess::release(std::int64_t bytes) {
  if (bytes < 0) {
    throw std::invalid_argument("goruntime: release() bytes must be >= 0");
  }
  heap_live_ = std::max<std::int64_t>(0, heap_live_ - bytes);
}

// ---------------------------------------------------------------- memory

std::int64_t GoProcess::thread_bytes() const {
  if (!alive_) {
    return 0;
  }
  return threads() * (cfg_.g0_stack_bytes + cfg_.signal_stack_bytes + cfg_.os_thread_bytes);
}

std::int64_t GoProcess::nonheap_bytes() const {
  return stack_bytes() + thread_bytes() + (alive_ ? cfg_.runtime_base_bytes : 0);
}

std::int64_t GoProcess::runtime_nonheap_bytes() const {
  return nonheap_bytes() - (alive_ ? threads() * cfg_.os_thread_bytes : 0);
}

std::int64_t GoProcess::rss_bytes() const { return heap_alloc_ + nonheap_bytes(); }

void GoProcess::check_memory() {
  std::int64_t rss = rss_bytes();
  rss_peak_ = std::max(rss_peak_, rss);
  if (alive_ && cfg_.container_memory_limit_bytes > 0 && rss > cfg_.container_memory_limit_bytes) {
    crash(CrashReason::kOomKill);
  }
  if (alive_ && memory_watch_) memory_watch_();
}

// ---------------------------------------------------------------- crash and restart

void GoProcess::kill(CrashReason reason) { crash(reason); }

void GoProcess::evict(sim::Duration replaced_after) {
  if (replaced_after < 0) throw std::invalid_argument("goruntime: negative replacement delay");
  replacement_delay_ = replaced_after;
  crash(CrashReason::kEvicted);
}

void GoProcess::set_container_memory_limit(std::int64_t bytes) {
  if (bytes < 0) {
    throw std::invalid_argument("goruntime: container memory limit must be >= 0");
  }
  cfg_.container_memory_limit_bytes = bytes;
  check_memory();
}

void GoProcess::set_world_stopped(bool stopped) {
  if (!alive_ || stopped == forced_stw_) {
    return;
  }
  forced_stw_ = stopped;
  if (stopped) {
    forced_stw_since_ = sim_.now();
    return;
  }
  const sim::Duration pause = sim_.now() - forced_stw_since_;
  ++forced_stws_;
  stw_last_ = pause;
  stw_peak_ = std::max(stw_peak_, pause);
  stw_hist_.record(pause);
#ifdef SKYSIM_PLANTED_BUGS
  // Planted for the fuzzer's self-test (docs/fuzzing.md, "Planted bugs"): a forced
  // stop-the-world of 100 ms or more leaks an M, counted in m_total_ but in no state, so
  // go.runtime must fail (until a crash resets the process).
  if (pause >= 100 * sim::kMillisecond) ++m_total_;
#endif
  dispatch();
}

void GoProcess::crash(CrashReason reason) {
  if (!alive_) {
    return;
  }
  std::string msg = std::string(crash_message(reason));
  if (reason == CrashReason::kOomKill) {
    ++oom_kills_;
    msg += " rss=" + std::to_string(rss_bytes()) +
           " limit=" + std::to_string(cfg_.container_memory_limit_bytes);
  } else if (reason == CrashReason::kNodeOomKill) {
    ++oom_kills_;  // Kubernetes reports OOMKilled for either
    msg += " rss=" + std::to_string(rss_bytes());
  } else if (reason == CrashReason::kEvicted) {
    ++evictions_;
    msg += " rss=" + std::to_string(rss_bytes());
  }
  msg += " threads=" + std::to_string(threads()) + " goroutines=" + std::to_string(goroutines_);
  if (reason != CrashReason::kDeploy) {
    ++crashes_;
  }
  last_crash_ = msg;
  alive_ = false;
  ++incarnation_;
  // Every goroutine dies with the process. What their waits hold is reset below before any
  // of them wakes, so their frames can be destroyed without unwinding (ProcessHandle::kill).
  all_g_.for_each([](Goroutine& g) {
    g.unlink();
    g.owner_ = nullptr;
    g.self_.kill();
  });
  runq_.for_each([this](RunWaiter& w) {
    w.unlink();
    sim_.wake(w.token);  // resumes into throw_if_gone -> Cancelled
  });
  in_syscall_.for_each([](SyscallRecord& r) { r.unlink(); });
  go_slices_.for_each([](GoSlice& s) { s.unlink(); });
  for (sim::ProcessHandle& h : gc_procs_) h.kill();  // the GC's threads died too
  gc_procs_.clear();
  if (own_cpu_) {
    cpu_->reset();  // every thread died with the process
  } else {
    cpu_->forget(this, background_threads_);  // the machine's other processes go on
  }
  background_threads_ = 0;
  reset_process();
  m_total_ = m_idle_ = 0;
  ps_idle_ = 0;
  all_idle_since_ = sim::kTimeMax;
  if (on_crash_) {
    on_crash_(reason, msg);
  }
  std::uint64_t inc = incarnation_;
  sim::Duration delay = 0;  // a deploy replaces the process at once, under a new spec hash
  if (reason == CrashReason::kDeploy) {
    backoff_.forget();
  } else if (reason == CrashReason::kEvicted) {
    backoff_.forget();  // the replacement is a new pod: no back-off carried over
    delay = replacement_delay_;
  } else if (cfg_.restart_policy.kind == RestartPolicyKind::kCrashLoopBackOff) {
    delay = backoff_.restart_at(sim_.now()) - sim_.now();
  } else {
    delay = cfg_.restart_delay;
  }
  last_restart_delay_ = delay;
  sim_.call_at(sim_.now() + delay, sim_.intern_kind("go.restart"),
               [this, inc] { restart(inc); });
}

void GoProcess::restart(std::uint64_t inc) {
  if (alive_ || inc != incarnation_) {
    return;
  }
  reset_process();
  alive_ = true;
  ++restarts_;
  if (on_restart_) {
    on_restart_();
  }
}

}  // namespace goruntime
