#pragma once
// A slice on the running process's lane, for model code written as coroutines:
//
//   sim::TraceSpan span = co_await sim::trace_span(sim_, "memcached.get", "memcached");
//   McResult r = co_await ...;
//   span.end({{"key", key}, {"error", r.error_text()}});   // or at the span's destruction
//
// Without a tracer, outside the tracer's categories or in a process holding no lane, the
// awaiter is ready at once and the span is empty: end() does nothing. It never suspends, so
// tracing cannot move an event. A span whose frame is destroyed (a crash cancels the
// goroutine) ends at that instant; one that outlives its tracer ends silently.
#include <string_view>
#include <utility>

#include "sim/process.hpp"
#include "sim/trace.hpp"

namespace sim {

class TraceSpan {
 public:
  TraceSpan() = default;
  TraceSpan(Simulation* sim, ActorId actor, TraceTrack track, std::string_view name,
            std::string_view cat)
      : sim_(sim), tracer_(sim->tracer()), actor_(actor), track_(track), name_(name), cat_(cat),
        start_(sim->now()) {}
  TraceSpan(TraceSpan&& o) noexcept { *this = std::move(o); }
  TraceSpan& operator=(TraceSpan&& o) noexcept {
    if (this != &o) {
      end();
      sim_ = std::exchange(o.sim_, nullptr);
      tracer_ = std::exchange(o.tracer_, nullptr);
      actor_ = o.actor_;
      track_ = o.track_;
      name_ = o.name_;
      cat_ = o.cat_;
      start_ = o.start_;
    }
    return *this;
  }
  TraceSpan(const TraceSpan&) = delete;
  TraceSpan& operator=(const TraceSpan&) = delete;
  ~TraceSpan() { end(); }

  explicit operator bool() const { return tracer_ != nullptr; }
  // The span's track: for instants inside it.
  TraceTrack track() const { return track_; }
  void end(TraceArgs args = {}) {
    if (tracer_ == nullptr) return;
    // Only while the process still holds the lane: a frame destroyed without unwinding (a
    // process cancelled before it ran on) frees its lane before its inner spans end.
    if (sim_->tracer() == tracer_ && tracer_->track_of(actor_) == track_) {
      tracer_->complete(track_, name_, cat_, start_, sim_->now() - start_, args);
    }
    tracer_ = nullptr;
  }

 private:
  Simulation* sim_ = nullptr;
  Tracer* tracer_ = nullptr;
  ActorId actor_ = 0;
  TraceTrack track_;
  std::string_view name_;  // literals: a span's name and category outlive it
  std::string_view cat_;
  Time start_ = 0;
};

struct TraceSpanAwaiter {
  Simulation* sim;
  std::string_view name;
  std::string_view cat;
  TraceTrack track{};
  ActorId actor = 0;
  bool await_ready() const noexcept {
    return sim->tracer() == nullptr || !sim->tracer()->wants(cat);
  }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) noexcept {
    actor = detail::proc_of(h)->id;
    track = sim->tracer()->track_of(actor);
    return false;  // never suspends: it only learns which process is asking
  }
  TraceSpan await_resume() const {
    if (!track) return TraceSpan{};
    return TraceSpan(sim, actor, track, name, cat);
  }
};

// `name` and `cat` must outlive the span (string literals).
inline TraceSpanAwaiter trace_span(Simulation& sim, std::string_view name, std::string_view cat) {
  return TraceSpanAwaiter{&sim, name, cat};
}

}  // namespace sim
