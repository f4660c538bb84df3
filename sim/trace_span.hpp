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
#include <memory>
#include <string_view>
#include <utility>

#include "sim/process.hpp"
#include "sim/trace.hpp"

namespace sim {

// What a traced span remembers until it ends. Kept out of line so an untraced span -- every
// span of a run without a tracer -- is one null pointer in its coroutine's frame: the frames of
// a full-size April batch (~20,000 goroutines, a span or two in each of their coroutines) no
// longer carry ~130 bytes of span and awaiter per span, written at every start.
struct TraceSpanRecord {
  Simulation* sim;
  Tracer* tracer;
  ActorId actor;
  TraceTrack track;
  std::string_view name;  // literals or program strings: a span's name and category outlive it
  std::string_view cat;
  Time start;
};

class TraceSpan {
 public:
  TraceSpan() = default;
  // Opens a traced span (out of line: the untraced path stays a test of one pointer).
  [[gnu::noinline]] TraceSpan(Simulation* sim, ActorId actor, TraceTrack track,
                              std::string_view name, std::string_view cat)
      : rec_(std::make_unique<TraceSpanRecord>(
            TraceSpanRecord{sim, sim->tracer(), actor, track, name, cat, sim->now()})) {}
  TraceSpan(TraceSpan&& o) noexcept = default;
  TraceSpan& operator=(TraceSpan&& o) noexcept {
    if (this != &o) {
      end();
      rec_ = std::move(o.rec_);
    }
    return *this;
  }
  TraceSpan(const TraceSpan&) = delete;
  TraceSpan& operator=(const TraceSpan&) = delete;
  ~TraceSpan() { end(); }

  explicit operator bool() const { return rec_ != nullptr; }
  // The span's track: for instants inside it.
  TraceTrack track() const { return rec_ != nullptr ? rec_->track : TraceTrack{}; }
  void end(TraceArgs args = {}) {
    if (rec_ != nullptr) close(args);
  }

 private:
  [[gnu::noinline]] void close(TraceArgs args) {
    const std::unique_ptr<TraceSpanRecord> ended = std::move(rec_);
    const TraceSpanRecord& r = *ended;
    // Only while the process still holds the lane: a frame destroyed without unwinding (a
    // process cancelled before it ran on) frees its lane before its inner spans end.
    if (r.sim->tracer() == r.tracer && r.tracer->track_of(r.actor) == r.track) {
      r.tracer->complete(r.track, r.name, r.cat, r.start, r.sim->now() - r.start, args);
    }
  }

  std::unique_ptr<TraceSpanRecord> rec_;
};

struct TraceSpanAwaiter {
  Simulation* sim;
  std::string_view name;
  std::string_view cat;
  TraceSpan span{};
  bool await_ready() const noexcept {
    return sim->tracer() == nullptr || !sim->tracer()->wants(cat);
  }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) noexcept {
    // Never suspends: it only learns which process is asking, and that process's lane.
    const ActorId actor = detail::proc_of(h)->id;
    const TraceTrack track = sim->tracer()->track_of(actor);
    if (track) span = TraceSpan(sim, actor, track, name, cat);
    return false;
  }
  TraceSpan await_resume() { return std::move(span); }
};

// `name` and `cat` must outlive the span (string literals).
inline TraceSpanAwaiter trace_span(Simulation& sim, std::string_view name, std::string_view cat) {
  return TraceSpanAwaiter{&sim, name, cat};
}

}  // namespace sim
