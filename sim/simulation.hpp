#pragma once
// The simulation kernel: one clock, one pending-event set, one fingerprint, named random
// streams. Everything that happens is an event popped in (time, sequence) order; an event
// either resumes a coroutine process (sim/process.hpp) or calls a Handler (the fast path for
// hot inner loops). Single-threaded by design: parallelism lives across seeds, never inside.
#include <bit>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <map>
#include <stdexcept>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/event_queue.hpp"
#include "sim/intrusive_list.hpp"
#include "sim/rng.hpp"
#include "sim/time.hpp"

namespace sim {

class Simulation;
class Process;
class Tracer;
class ProcessHandle;

using ActorId = std::uint32_t;
using Kind = std::uint16_t;  // interned event kind ("goroutine", "tcp.timewait", ...)

// A callback target. Models derive from it for hot paths (no frame, no allocation).
class Handler {
 public:
  virtual ~Handler() = default;
  virtual void on_event(Simulation& sim) = 0;
  // Called at teardown for each still-pending entry, so one-shot handlers can free themselves.
  virtual void on_discard() {}

  ActorId actor_id = 0;
  Kind kind = 0;
};

class ProcessTable;
struct ProcCold;

// Bookkeeping of one coroutine process. It lives in the Simulation's process table (a slab with
// stable addresses), not in the frame: queue entries name it by (slot index, generation), so
// a stale entry (a timeout whose wait already ended) keeps no frame alive; the frame is freed
// the moment the process completes, and the slot once no ProcessHandle refers to it.
//
// Split in two so a resume touches one cache line: ProcState holds every field a resume, a
// park or a wake-up reads or writes, in exactly one 64-byte line (aligned, so no slot
// straddles two lines); ProcCold (error, joiners, the live-list node) is read at spawn, join
// and completion only, in a parallel array of the table. Before the split a 104-byte slot
// spanned two lines on every resume (docs/kernel.md, "Coroutine resume path").
struct alignas(64) ProcState {
  Simulation* sim = nullptr;
  std::coroutine_handle<> waiting;  // innermost frame parked on an awaiter
  std::coroutine_handle<> root;     // the top-level frame (owns every nested frame); null once freed
  ProcessTable* table = nullptr;
  ActorId id = 0;
  std::uint32_t index = 0;    // this slot's place in the table
  std::uint32_t gen = 0;      // bumped on every resume, at completion and when the slot is freed
  std::uint32_t pending = 0;  // queue entries naming this slot (any generation): the wrap scan
  std::uint32_t refs = 0;     // live ProcessHandles
  Kind kind = 0;
  bool started = false;
  bool done = false;
  bool cancel_requested = false;
  bool suspended = false;
  bool kill_requested = false;  // ProcessHandle::kill(): destroy rather than unwind, if killable
  bool killable = false;        // parked by park_killable() (cleared at every resume)

  void park(std::coroutine_handle<> h) {
    waiting = h;
    suspended = true;
  }
  // The cold part of this slot (defined after ProcessTable).
  ProcCold& cold() const;
};
static_assert(sizeof(ProcState) == 64, "one cache line per process slot");

// The part of a process's bookkeeping no resume touches.
struct ProcCold {
  std::exception_ptr error;
  IntrusiveList<struct Waiter> joiners;
  ListNode live;  // in Simulation's list of frames not yet freed
  ProcState* state = nullptr;  // back from `live` to the slot
};

// The slab of ProcStates: chunks that never move, so a ProcState* stays valid while its slot
// is held. Reference-counted by the Simulation and by every ProcessHandle, so a handle that
// outlives its Simulation still reads valid memory (done() is then true; cancel() does nothing).
class ProcessTable {
 public:
  static constexpr std::uint32_t kChunk = 1024;
  // Slot indices fit in 30 bits (a queue entry's two low bits say handler, process or timer);
  // the last index is never handed out: it is the tombstone of a retired entry.
  static constexpr std::uint32_t kMaxSlots = (1U << 30) - 1;

  ProcState& at(std::uint32_t index) { return chunks_[index / kChunk][index % kChunk]; }
  ProcCold& cold_at(std::uint32_t index) const {
    return cold_chunks_[index / kChunk][index % kChunk];
  }
  ProcState& acquire();
  // Returns a slot whose process is done and unreferenced (the Simulation has moved it to a
  // new generation first, so no queued entry still matches it).
  void release(ProcState& p);
  std::size_t slots() const { return chunks_.size() * kChunk; }

  Simulation* sim = nullptr;  // null once the Simulation is gone
  std::size_t holders = 1;    // the Simulation plus every live ProcessHandle
  void drop_holder() {
    if (--holders == 0) delete this;
  }

 private:
  std::vector<std::unique_ptr<ProcState[]>> chunks_;
  std::vector<std::unique_ptr<ProcCold[]>> cold_chunks_;  // the same indices as chunks_
  std::vector<std::uint32_t> free_;  // LIFO; which slot a process gets never affects results
  std::uint32_t next_ = 0;
};

inline ProcCold& ProcState::cold() const { return table->cold_at(index); }

// What an awaiter keeps so a primitive can wake the process that waits on it.
struct WakeToken {
  ProcState* proc = nullptr;
  std::uint32_t gen = 0;
};

// A pending callback that can be cancelled (Simulation::schedule_timer): a slot index and the
// generation it had when armed. Cancelling leaves a stale queue entry that names the slot, not
// the Handler, so the Handler may be destroyed right after cancel().
struct TimerToken {
  static constexpr std::uint32_t kNone = 0xFFFFFFFFU;
  std::uint32_t index = kNone;
  std::uint32_t gen = 0;
  bool armed() const { return index != kNone; }
};

struct Waiter : ListNode {
  WakeToken token;
};

// Sees every executed event (the tracer and per-model fingerprints use it).
class EventObserver {
 public:
  virtual ~EventObserver() = default;
  virtual void on_event(Time now, Kind kind, ActorId actor) = 0;
};

// The run-time failure of a model invariant or an escaped exception: a bug, not a modelled fault.
class SimulationFailure : public std::runtime_error {
 public:
  SimulationFailure(const std::string& what, Time at) : std::runtime_error(what), at_ns(at) {}
  Time at_ns;
};

class Simulation {
 public:
  explicit Simulation(std::uint64_t seed, std::int64_t epoch_unix_ns = 0);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  Time now() const { return now_; }
  std::uint64_t seed() const { return seed_; }
  std::int64_t epoch_unix_ns() const { return epoch_unix_ns_; }
  std::string date(Time t) const;  // ISO-8601 of a simulated time
  std::string date() const { return date(now_); }

  // The named stream, created on first use. References stay valid for the run.
  Rng& stream(std::string_view name);
  // Every stream created so far with its draw count (engine words), by name.
  std::vector<std::pair<std::string, std::uint64_t>> stream_draws() const;

  // The unseed (docs/fuzzing.md): what the event fingerprint, over (time, kind, actor), cannot
  // see. Models fold payload values and end states into it explicitly (fold, fold_real);
  // unseed() mixes those folds with every stream's name and draw count. Two runs with the same
  // event order but a different payload (one extra draw, another size or a changed counter)
  // share the fingerprint and differ here.
  void fold(std::uint64_t value) { fold_ = mix(fold_ ^ value); }
  void fold_real(double value) { fold(std::bit_cast<std::uint64_t>(value == 0.0 ? 0.0 : value)); }
  std::uint64_t unseed() const;

  Kind intern_kind(std::string_view name);
  const std::string& kind_name(Kind k) const { return kinds_[k]; }
  std::size_t kind_count() const { return kinds_.size(); }
  ActorId new_actor_id() { return ++last_actor_; }

  // Callback events. A time before now() throws SimulationFailure naming the event and both
  // times (the past is a bug, never silently "now"); schedule_in saturates: a duration past
  // the end of time schedules at kTimeMax (after every finite time; run() still reaches it).
  void schedule_at(Time t, Handler& h);
  void schedule_in(Duration d, Handler& h) { schedule_at(after(d), h); }
  // now() + d, saturated at kTimeMax (d may be negative: then it is simply earlier).
  Time after(Duration d) const { return d > kTimeMax - now_ ? kTimeMax : now_ + d; }
  // A rare one-off action (timeline changes, faults); allocates, so not for hot paths.
  template <class F>
  void call_at(Time t, Kind kind, F&& fn);

  // A callback at t that cancel_timer() can withdraw (a request's deadline on the callback
  // path). The token is reset when cancelled; a token whose event has run is simply stale.
  TimerToken schedule_timer(Time t, Handler& h);
  // True if the timer was still pending (then its handler will not run). Resets the token.
  bool cancel_timer(TimerToken& token);
  bool timer_pending(const TimerToken& token) const {
    return token.armed() && token.index < timers_.size() && timers_[token.index].gen == token.gen &&
           timers_[token.index].handler != nullptr;
  }

  // Processes (sim/process.hpp has Process, Task, sleep and the primitives).
  ProcessHandle spawn(Process p, std::string_view kind_name = "process");
  ProcessHandle spawn(Process p, Kind kind);
  void wake(WakeToken tok) { wake_at(tok, now_); }
  void wake_at(WakeToken tok, Time t);

  // Runs events with time <= until, then leaves the clock at `until` (unless stopped).
  // Returns false if stop() was called. Rethrows a process failure as SimulationFailure.
  bool run_until(Time until);
  bool run() { return run_until(kTimeMax); }
  void stop() { stop_requested_ = true; }
  bool stopped() const { return stop_requested_; }
  bool idle() const { return queue_.empty(); }
  Time next_event_time() const { return queue_.empty() ? kTimeMax : queue_.top().time; }

  // Running 64-bit hash over (time, kind, actor) of every executed event.
  std::uint64_t fingerprint() const { return fingerprint_; }
  std::uint64_t events_executed() const { return events_; }
  std::size_t pending_events() const { return queue_.size(); }
  // Process frames not yet freed (a frame is freed when its process completes).
  std::size_t live_processes() const { return live_count_; }
  // Kernel statistics of the run so far, for `skysim run` and the tests.
  struct Stats {
    std::uint64_t events = 0;      // executed (the fingerprint's events)
    std::uint64_t stale_pops = 0;  // popped entries that woke nothing (ended waits, timeouts)
    std::uint64_t peak_pending = 0;  // most entries queued at once
    std::uint64_t peak_frames = 0;   // most process frames alive at once
    std::uint64_t frames_freed = 0;  // process frames freed at completion
  };
  Stats stats() const {
    return Stats{events_, stale_pops_, peak_pending_, peak_frames_, frames_freed_};
  }

  void add_observer(EventObserver* o) { observers_.push_back(o); }
  void remove_observer(EventObserver* o) { std::erase(observers_, o); }
  // The attached tracer (sim/trace.hpp), or null: models check it before building any slice,
  // so an untraced run pays one null test per hook. Tracing only observes: nothing a model
  // does may depend on it.
  Tracer* tracer() const { return tracer_; }
  void set_tracer(Tracer* t) { tracer_ = t; }

  // Destroys every process frame now (their awaiters unlink, their locals' destructors run).
  // Owners of models call this before destroying models that frames may still reference.
  void shutdown();

  // Called by the process machinery; not for models.
  void on_process_done(ProcState& p);
  // A killed process's wake-up: its frames destroyed innermost first, then it is done.
  void destroy_killed(ProcState& p);
  void release_ref(ProcState& p);
  void fail(std::exception_ptr e);
  bool shutting_down() const { return shutting_down_; }

 private:
  void push(Time t, std::uint64_t target);
  [[noreturn]] void throw_past(Time t, std::uint64_t target) const;
  // Moves a slot to its next generation; at a wrap, entries still naming it become tombstones.
  void bump_generation(std::uint32_t& gen, std::uint32_t& pending, std::uint64_t target_of_slot);
  void free_timer(std::uint32_t index);

  struct TimerSlot {
    Handler* handler = nullptr;  // null while free
    std::uint32_t gen = 0;
    std::uint32_t pending = 0;  // queue entries naming this slot (any generation)
  };
  void maybe_free(ProcState& p);
  void prefetch_next_resumes() const;
  static std::uint64_t mix(std::uint64_t h) {
    h *= 0x9E3779B97F4A7C15ULL;
    h ^= h >> 32;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 31);
  }
  void record(Kind kind, ActorId actor) {
    std::uint64_t h = fingerprint_ ^ static_cast<std::uint64_t>(now_);
    h *= 0x9E3779B97F4A7C15ULL;
    h ^= (static_cast<std::uint64_t>(kind) << 32) | actor;
    h *= 0xBF58476D1CE4E5B9ULL;
    fingerprint_ = h ^ (h >> 31);
    ++events_;
    for (EventObserver* o : observers_) o->on_event(now_, kind, actor);
  }

  Time now_ = 0;
  std::uint64_t seed_;
  std::int64_t epoch_unix_ns_;
  // mutable: top() closes the queue's deferred-pop hole, a change of representation only.
  mutable EventQueue queue_;
  std::uint64_t next_seq_ = 0;
  std::uint64_t fingerprint_ = 0x5EED5EED5EED5EEDULL;
  std::uint64_t fold_ = 0x0115EED0115EED01ULL;  // the models' folds (unseed())
  std::uint64_t events_ = 0;
  ActorId last_actor_ = 0;
  bool stop_requested_ = false;
  bool shutting_down_ = false;
  std::exception_ptr failure_;
  std::size_t live_count_ = 0;
  std::uint64_t stale_pops_ = 0;
  std::uint64_t peak_pending_ = 0;
  std::uint64_t peak_frames_ = 0;
  std::uint64_t frames_freed_ = 0;
  ProcessTable* procs_;
  std::vector<TimerSlot> timers_;
  std::vector<std::uint32_t> free_timers_;  // LIFO
  IntrusiveList<ListNode> live_;
  std::vector<std::string> kinds_;
  std::map<std::string, Kind, std::less<>> kind_ids_;
  std::map<std::string, std::unique_ptr<Rng>, std::less<>> streams_;
  std::vector<EventObserver*> observers_;
  Tracer* tracer_ = nullptr;
};

namespace detail {
template <class F>
class OneShot final : public Handler {
 public:
  explicit OneShot(F f) : fn_(std::move(f)) {}
  void on_event(Simulation&) override {
    std::unique_ptr<OneShot> self(this);  // freed even if fn_ throws
    fn_();
  }
  void on_discard() override { delete this; }

 private:
  F fn_;
};
}  // namespace detail

template <class F>
void Simulation::call_at(Time t, Kind kind, F&& fn) {
  auto* h = new detail::OneShot<std::decay_t<F>>(std::forward<F>(fn));
  h->kind = kind;
  schedule_at(t, *h);
}

}  // namespace sim
