#include "sim/simulation.hpp"

#include <cassert>

#include "sim/process.hpp"

namespace sim {
namespace {

constexpr std::uint64_t kGenBits = 24;
constexpr std::uint64_t kGenMask = (1ULL << kGenBits) - 1;
constexpr std::uint64_t kSeqMax = (1ULL << (64 - kGenBits)) - 1;

bool is_handler(void* target) { return (reinterpret_cast<std::uintptr_t>(target) & 1U) != 0; }
Handler* as_handler(void* target) {
  return reinterpret_cast<Handler*>(reinterpret_cast<std::uintptr_t>(target) & ~std::uintptr_t{1});
}

ProcState* state_of(ListNode* live) {
  return reinterpret_cast<ProcState*>(reinterpret_cast<char*>(live) - offsetof(ProcState, live));
}

}  // namespace

Simulation::Simulation(std::uint64_t seed, std::int64_t epoch_unix_ns)
    : seed_(seed), epoch_unix_ns_(epoch_unix_ns) {
  kinds_.emplace_back("none");
  kind_ids_.emplace("none", 0);
}

Simulation::~Simulation() { shutdown(); }

void Simulation::shutdown() {
  shutting_down_ = true;
  // Pending one-shot handlers own themselves; tell every pending handler it will never fire.
  queue_.for_each([](const QueueEntry& e) {
    if (is_handler(e.target)) as_handler(e.target)->on_discard();
  });
  queue_.clear();
  // Destroy every frame not yet freed. Destroying a top-level frame destroys its nested
  // Task frames and runs its awaiters' destructors, which unlink them from wait lists.
  while (!live_.empty()) {
    ProcState& p = *state_of(&live_.pop_front());
    p.root.destroy();
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

Kind Simulation::intern_kind(std::string_view name) {
  auto it = kind_ids_.find(name);
  if (it != kind_ids_.end()) return it->second;
  if (kinds_.size() > 0xFFFF) throw std::length_error("more than 65535 event kinds");
  Kind k = static_cast<Kind>(kinds_.size());
  kinds_.emplace_back(name);
  kind_ids_.emplace(std::string(name), k);
  return k;
}

void Simulation::push(Time t, void* target, std::uint32_t gen) {
  if (t < now_) t = now_;  // the past is not schedulable; "now" keeps FIFO order
  if (next_seq_ >= kSeqMax) throw std::overflow_error("event sequence space exhausted");
  const QueueEntry e{t, (next_seq_++ << kGenBits) | (gen & kGenMask), target};
  if (t == now_) {
    queue_.push_now(e);
  } else {
    queue_.push(e);
  }
}

void Simulation::schedule_at(Time t, Handler& h) {
  push(t, reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(&h) | 1U), 0);
}

void Simulation::wake_at(WakeToken tok, Time t) {
  ++tok.proc->pending;
  push(t, tok.proc, tok.gen);
}

ProcessHandle Simulation::spawn(Process p, std::string_view kind_name) {
  return spawn(std::move(p), intern_kind(kind_name));
}

ProcessHandle Simulation::spawn(Process p, Kind kind) {
  auto h = p.release();
  ProcState& st = h.promise().state;
  st.sim = this;
  st.root = h;
  st.waiting = h;
  st.suspended = true;
  st.id = new_actor_id();
  st.kind = kind;
  live_.push_back(st.live);
  ++live_count_;
  wake(WakeToken{&st, st.gen});
  return ProcessHandle(&st);
}

bool Simulation::run_until(Time until) {
  stop_requested_ = false;
  while (!queue_.empty()) {
    const QueueEntry& top = queue_.top();
    if (top.time > until) break;
    QueueEntry e = queue_.pop();
    now_ = e.time;
    if (is_handler(e.target)) {
      Handler* h = as_handler(e.target);
      record(h->kind, h->actor_id);
      h->on_event(*this);
    } else {
      auto* p = static_cast<ProcState*>(e.target);
      --p->pending;
      if ((e.key & kGenMask) != (p->gen & kGenMask) || !p->suspended) {
        maybe_free(*p);  // stale: the process was woken by something else first
        continue;
      }
      record(p->kind, p->id);
      ++p->gen;
      p->suspended = false;
      p->started = true;
      p->waiting.resume();  // p may be freed from here on
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
  if (p_ == nullptr || p_->done || p_->cancel_requested) return;
  p_->cancel_requested = true;
  if (!p_->started) {
    // Never ran: finish it without running its body.
    p_->sim->on_process_done(*p_);
    return;
  }
  if (p_->suspended) p_->sim->wake(WakeToken{p_, p_->gen});
}

void Simulation::on_process_done(ProcState& p) {
  p.done = true;
  p.suspended = false;
  p.joiners.for_each([this](Waiter& w) {
    w.unlink();
    wake(w.token);
  });
  if (p.error) {
    try {
      std::rethrow_exception(p.error);
    } catch (const Cancelled&) {
      // Cancellation is an ordinary way for a process to end.
    } catch (...) {
      fail(std::current_exception());
    }
  }
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
  if (p.done && p.pending == 0 && p.refs == 0 && !shutting_down_) destroy_frame(p);
}

void Simulation::destroy_frame(ProcState& p) {
  p.live.unlink();
  --live_count_;
  p.root.destroy();  // p lives in this frame: do not touch it afterwards
}

}  // namespace sim
