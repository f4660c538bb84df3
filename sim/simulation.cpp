#include "sim/simulation.hpp"

#include <cassert>

#include "sim/process.hpp"

namespace sim {
namespace {

// A queue entry's target: a Handler address with bit 0 set, or a slot as
// (generation << 32) | (index << 2) | (bit 1: a timer slot, else a process slot). The
// generation is the slot's full 32 bits.
constexpr std::uint64_t kHandlerBit = 1;
constexpr std::uint64_t kTimerBit = 2;
constexpr std::uint64_t kTombstone = static_cast<std::uint64_t>(ProcessTable::kMaxSlots) << 2;

bool is_handler(std::uint64_t target) { return (target & kHandlerBit) != 0; }
bool is_timer(std::uint64_t target) { return (target & kTimerBit) != 0; }
// A live or stale process entry (not a handler, a timer or a tombstone).
bool is_process(std::uint64_t target) {
  return !is_handler(target) && !is_timer(target) && target != kTombstone;
}
Handler* as_handler(std::uint64_t target) {
  return reinterpret_cast<Handler*>(static_cast<std::uintptr_t>(target & ~kHandlerBit));
}
std::uint64_t process_target(std::uint32_t index, std::uint32_t gen) {
  return (static_cast<std::uint64_t>(gen) << 32) | (static_cast<std::uint64_t>(index) << 2);
}
std::uint64_t timer_target(std::uint32_t index, std::uint32_t gen) {
  return process_target(index, gen) | kTimerBit;
}
std::uint32_t slot_of(std::uint64_t target) {
  return static_cast<std::uint32_t>(target & 0xFFFFFFFFU) >> 2;
}
// The part of a target that names the slot, whatever the generation.
std::uint64_t slot_part(std::uint64_t target) { return target & 0xFFFFFFFFU; }
std::uint32_t gen_of(std::uint64_t target) { return static_cast<std::uint32_t>(target >> 32); }

ProcState* state_of(ListNode* live) {
  return reinterpret_cast<ProcCold*>(reinterpret_cast<char*>(live) - offsetof(ProcCold, live))
      ->state;
}

}  // namespace

ProcState& ProcessTable::acquire() {
  std::uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    if (next_ >= kMaxSlots) throw std::length_error("more than 2^31-1 process slots");
    if (next_ % kChunk == 0) {
      chunks_.push_back(std::make_unique<ProcState[]>(kChunk));
      cold_chunks_.push_back(std::make_unique<ProcCold[]>(kChunk));
    }
    index = next_++;
  }
  ProcState& p = at(index);
  // Everything but the slot's identity (index, generation, pending count) starts afresh.
  const std::uint32_t gen = p.gen;
  const std::uint32_t pending = p.pending;
  p.~ProcState();
  new (&p) ProcState{};
  p.index = index;
  p.gen = gen;
  p.pending = pending;
  p.table = this;
  ProcCold& c = cold_at(index);
  c.~ProcCold();
  new (&c) ProcCold{};
  c.state = &p;
  return p;
}

void ProcessTable::release(ProcState& p) {
  p.cold().error = nullptr;
  free_.push_back(p.index);
}

Simulation::Simulation(std::uint64_t seed, std::int64_t epoch_unix_ns)
    : seed_(seed), epoch_unix_ns_(epoch_unix_ns), procs_(new ProcessTable) {
  procs_->sim = this;
  kinds_.emplace_back("none");
  kind_ids_.emplace("none", 0);
}

Simulation::~Simulation() {
  shutdown();
  procs_->sim = nullptr;
  procs_->drop_holder();  // handles still held keep the table (not the frames) alive
}

void Simulation::shutdown() {
  shutting_down_ = true;
  // Pending one-shot handlers own themselves; tell every pending handler it will never fire.
  queue_.for_each([this](const QueueEntry& e) {
    if (is_handler(e.target)) {
      as_handler(e.target)->on_discard();
    } else if (is_timer(e.target)) {
      const TimerSlot& t = timers_[slot_of(e.target)];
      if (t.gen == gen_of(e.target) && t.handler != nullptr) t.handler->on_discard();
    }
  });
  queue_.clear();
  // Destroy every frame not yet freed. Destroying a top-level frame destroys its nested
  // Task frames and runs its awaiters' destructors, which unlink them from wait lists.
  while (!live_.empty()) {
    ProcState& p = *state_of(&live_.pop_front());
    --live_count_;
    p.done = true;
    p.suspended = false;
    std::exchange(p.root, {}).destroy();
  }
}

std::string Simulation::date(Time t) const { return format_iso8601(epoch_unix_ns_ + t); }

Rng& Simulation::stream(std::string_view name) {
  auto it = streams_.find(name);
  if (it == streams_.end()) {
    it = streams_.emplace(std::string(name), std::make_unique<Rng>(stream_seed(seed_, name))).first;
  }
  return *it->second;
}

std::vector<std::pair<std::string, std::uint64_t>> Simulation::stream_draws() const {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  out.reserve(streams_.size());
  for (const auto& [name, rng] : streams_) out.emplace_back(name, rng->draws());
  return out;
}

std::uint64_t Simulation::unseed() const {
  std::uint64_t h = fold_;
  // streams_ is a std::map: by name, the same order in every run.
  for (const auto& [name, rng] : streams_) {
    h = mix(h ^ stream_seed(0, name));
    h = mix(h ^ rng->draws());
  }
  return h;
}

Kind Simulation::intern_kind(std::string_view name) {
  auto it = kind_ids_.find(name);
  if (it != kind_ids_.end()) return it->second;
  if (kinds_.size() > 0xFFFF) throw std::length_error("more than 65535 event kinds");
  Kind k = static_cast<Kind>(kinds_.size());
  kinds_.emplace_back(name);
  kind_ids_.emplace(std::string(name), k);
  return k;
}

void Simulation::push(Time t, std::uint64_t target) {
  if (t < now_) throw_past(t, target);
  const QueueEntry e{t, next_seq_++, target};
  if (t == now_) {
    queue_.push_now(e);
  } else {
    queue_.push(e);
  }
  if (queue_.size() > peak_pending_) peak_pending_ = queue_.size();
}

void Simulation::throw_past(Time t, std::uint64_t target) const {
  std::string what;
  if (is_handler(target) || is_timer(target)) {
    const Handler* h = is_handler(target) ? as_handler(target) : timers_[slot_of(target)].handler;
    what = "handler event '" + kinds_[h->kind] + "' (actor " + std::to_string(h->actor_id) + ")";
  } else {
    const ProcState& p = procs_->at(slot_of(target));
    what = "wake-up of process '" + kinds_[p.kind] + "' (actor " + std::to_string(p.id) + ")";
  }
  throw SimulationFailure("scheduling into the past: " + what + " at t=" + std::to_string(t) +
                              " ns (" + date(t) + "), now is t=" + std::to_string(now_) +
                              " ns (" + date(now_) + ")",
                          now_);
}

void Simulation::schedule_at(Time t, Handler& h) {
  push(t, static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&h)) | kHandlerBit);
}

TimerToken Simulation::schedule_timer(Time t, Handler& h) {
  std::uint32_t index;
  if (!free_timers_.empty()) {
    index = free_timers_.back();
    free_timers_.pop_back();
  } else {
    if (timers_.size() >= ProcessTable::kMaxSlots) throw std::length_error("too many timers");
    index = static_cast<std::uint32_t>(timers_.size());
    timers_.emplace_back();
  }
  TimerSlot& slot = timers_[index];
  slot.handler = &h;
  try {
    push(t, timer_target(index, slot.gen));
  } catch (...) {
    free_timer(index);
    throw;
  }
  ++slot.pending;
  return TimerToken{index, slot.gen};
}

bool Simulation::cancel_timer(TimerToken& token) {
  const bool was = timer_pending(token);
  if (was) free_timer(token.index);
  token = TimerToken{};
  return was;
}

void Simulation::free_timer(std::uint32_t index) {
  TimerSlot& slot = timers_[index];
  slot.handler = nullptr;
  bump_generation(slot.gen, slot.pending, timer_target(index, 0));
  free_timers_.push_back(index);
}

void Simulation::wake_at(WakeToken tok, Time t) {
  push(t, process_target(tok.proc->index, tok.gen));
  ++tok.proc->pending;
}

ProcessHandle Simulation::spawn(Process p, std::string_view kind_name) {
  return spawn(std::move(p), intern_kind(kind_name));
}

ProcessHandle Simulation::spawn(Process p, Kind kind) {
  auto h = p.release();
  ProcState& st = procs_->acquire();
  h.promise().proc = &st;
  st.sim = this;
  st.root = h;
  st.waiting = h;
  st.suspended = true;
  st.id = new_actor_id();
  st.kind = kind;
  live_.push_back(st.cold().live);
  if (++live_count_ > peak_frames_) peak_frames_ = live_count_;
  ProcessHandle handle(&st);
  wake(WakeToken{&st, st.gen});
  return handle;
}

// A resume or a completion moves the process to its next generation, so every entry queued
// for an earlier one is stale. At the 2^32nd step the counter would come back to values that
// old entries may still carry: those entries (all stale by now) become tombstones first, so
// a wrap can never resume the wrong awaiter.
void Simulation::bump_generation(std::uint32_t& gen, std::uint32_t& pending,
                                 std::uint64_t target_of_slot) {
  if (++gen != 0 || pending == 0) return;
  const std::uint64_t slot = slot_part(target_of_slot);
  queue_.retarget([slot](std::uint64_t target) {
    return !is_handler(target) && slot_part(target) == slot ? kTombstone : target;
  });
  pending = 0;
}

// A resume misses cache twice: the process's slot, then its frame (16 Ki processes hold ~1 MiB
// of slots and ~4 MiB of frames). When the next entries are known (the calendar's sorted day,
// the ladder's sorted bottom), fetch the slot of the process four pops on and the frame of the
// one two pops on, whose slot an earlier iteration fetched; near the end of the sorted run,
// where those are not known, two pops on and the next. One event ahead was too short for a
// miss to memory to land before the resume needed it (perf: the resume's first instruction
// and the load of the next slot's `waiting` held most of the loop's samples), hence the
// longer distances (docs/kernel.md, "The ladder above 64 Ki"). A hint only: nothing depends
// on it. Inlined on purpose: the same code out of line measured no gain (docs/benchmarks.md,
// "h-kernel: the process slot").
[[gnu::always_inline]] inline void Simulation::prefetch_next_resumes() const {
  const QueueEntry* far = queue_.ahead(3);
  if (far == nullptr) far = queue_.ahead(1);
  if (far != nullptr && is_process(far->target)) {
    __builtin_prefetch(&procs_->at(slot_of(far->target)), 1);
  }
  const QueueEntry* near = queue_.ahead(1);
  if (near == nullptr) near = queue_.ahead(0);
  if (near != nullptr && is_process(near->target)) {
    const ProcState& q = procs_->at(slot_of(near->target));
    if (q.waiting) __builtin_prefetch(q.waiting.address(), 1);
  }
}

bool Simulation::run_until(Time until) {
  stop_requested_ = false;
  while (!queue_.empty()) {
    const QueueEntry& top = queue_.top();
    if (top.time > until) break;
    QueueEntry e = queue_.pop();
    // Scheduling into the past throws, so an earlier pop can only be the queue's own fault:
    // say so here, not later through a model's broken invariant (the ladder's split bug).
    if (e.time < now_) [[unlikely]] {
      throw std::logic_error("sim: the event queue popped " + format_duration(e.time) + " after " +
                             format_duration(now_));
    }
    now_ = e.time;
    if (is_handler(e.target)) {
      Handler* h = as_handler(e.target);
      record(h->kind, h->actor_id);
      h->on_event(*this);
    } else if (is_timer(e.target)) {
      const std::uint32_t index = slot_of(e.target);
      TimerSlot& slot = timers_[index];
      --slot.pending;
      if (slot.gen != gen_of(e.target) || slot.handler == nullptr) {
        ++stale_pops_;  // cancelled
        continue;
      }
      Handler* h = slot.handler;
      free_timer(index);
      record(h->kind, h->actor_id);
      h->on_event(*this);
    } else {
      if (e.target == kTombstone) {
        ++stale_pops_;
        continue;
      }
      prefetch_next_resumes();
      ProcState& p = procs_->at(slot_of(e.target));
      --p.pending;
      if (gen_of(e.target) != p.gen || !p.suspended) {
        ++stale_pops_;  // the process was woken by something else first, or has finished
        continue;
      }
      record(p.kind, p.id);
      bump_generation(p.gen, p.pending, process_target(p.index, 0));
      p.suspended = false;
      p.started = true;
      if (p.kill_requested && p.killable) {
        destroy_killed(p);
      } else {
        p.killable = false;
        p.waiting.resume();  // p's frame may be freed from here on (the slot stays until released)
      }
    }
    if (failure_) {
      std::exception_ptr f = std::exchange(failure_, nullptr);
      std::rethrow_exception(f);
    }
    if (stop_requested_) return false;
  }
  if (until != kTimeMax && now_ < until) now_ = until;
  return true;
}

void ProcessHandle::cancel() {
  if (p_ == nullptr || p_->done || p_->cancel_requested || p_->table->sim == nullptr) return;
  p_->cancel_requested = true;
  if (!p_->started) {
    // Never ran: finish it without running its body.
    p_->sim->on_process_done(*p_);
    return;
  }
  if (p_->suspended) p_->sim->wake(WakeToken{p_, p_->gen});
}

void ProcessHandle::kill() {
  if (p_ == nullptr || p_->done || p_->table->sim == nullptr) return;
  p_->kill_requested = true;
  cancel();
}

namespace {
// The nested Tasks under `pb`, innermost first: each frame's locals, then its parameters, as
// the unwinding of a sim::Cancelled would destroy them, and each owning Task's handle nulled.
void destroy_callees(PromiseBase& pb) {
  PromiseBase* c = std::exchange(pb.callee, nullptr);
  if (c == nullptr) return;
  destroy_callees(*c);
  std::exchange(*pb.callee_frame, {}).destroy();
}
}  // namespace

void Simulation::destroy_killed(ProcState& p) {
  auto root = std::coroutine_handle<Process::promise_type>::from_address(p.root.address());
  destroy_callees(root.promise());
  std::exchange(p.root, {}).destroy();
  on_process_done(p);
}

void ProcessHandle::release() noexcept {
  ProcessTable* table = p_->table;
  if (table->sim != nullptr) {
    table->sim->release_ref(*p_);
  } else {
    --p_->refs;
  }
  p_ = nullptr;
  table->drop_holder();
}

void Simulation::on_process_done(ProcState& p) {
  p.done = true;
  p.suspended = false;
  bump_generation(p.gen, p.pending, process_target(p.index, 0));
  ProcCold& cold = p.cold();
  cold.joiners.for_each([this](Waiter& w) {
    w.unlink();
    wake(w.token);
  });
  std::exception_ptr error = cold.error;
  // The frame goes now: nothing queued refers to it (entries name the slot, not the frame).
  cold.live.unlink();
  --live_count_;
  ++frames_freed_;
  if (std::coroutine_handle<> root = std::exchange(p.root, {})) root.destroy();  // null: killed
  if (error) fail(error);  // a Cancelled end leaves no error (promise_type::unhandled_exception)
  maybe_free(p);
}

void Simulation::fail(std::exception_ptr e) {
  if (!failure_) failure_ = e;
}

void Simulation::release_ref(ProcState& p) {
  assert(p.refs > 0);
  --p.refs;
  maybe_free(p);
}

void Simulation::maybe_free(ProcState& p) {
  if (p.done && p.refs == 0 && !shutting_down_) {
    bump_generation(p.gen, p.pending, process_target(p.index, 0));
    procs_->release(p);
  }
}

}  // namespace sim
