// What a Go process shows in a trace (sim/trace.hpp): its GC cycles and phases on a "GC"
// thread of the host's process track. Goroutine lanes and the Go code / syscall slices are
// recorded where they start and end (go_process.cpp). Observation only.
#include "models/goruntime/go_process.hpp"
#include "sim/trace.hpp"

namespace goruntime {

std::uint32_t GoProcess::trace_pid() const {
  sim::Tracer* t = sim_.tracer();
  return t != nullptr ? t->process(cfg_.name) : 0;
}

namespace {
const char* phase_name(int phase) {
  switch (phase) {
    case 1: return "STW sweep termination";
    case 2: return "mark";
    case 3: return "STW mark termination";
    default: return "off";
  }
}
}  // namespace

// Called before phase_ changes to `next`: closes the phase that ends now and, when the GC goes
// back to off (a cycle finished, or the process died mid-cycle), the cycle around it.
void GoProcess::trace_gc_phase(GcPhase next) {
  sim::Tracer* t = sim_.tracer();
  if (t == nullptr || next == phase_ || !t->wants("gc")) return;
  const sim::Time now = sim_.now();
  const sim::TraceTrack gc = t->thread(trace_pid(), "GC");
  if (phase_ == GcPhase::kOff) {
    trace_cycle_since_ = now;
  } else {
    t->complete(gc, phase_name(static_cast<int>(phase_)), "gc", trace_phase_since_,
                now - trace_phase_since_);
  }
  if (next == GcPhase::kOff) {
    t->complete(gc, "GC cycle", "gc", trace_cycle_since_, now - trace_cycle_since_,
                {{"cycle", static_cast<std::uint64_t>(gc_cycles_ + 1)},
                 {"heap_alloc_bytes", heap_alloc_},
                 {"heap_live_bytes", heap_live_},
                 {"completed", alive_ ? 1 : 0}});
  }
  trace_phase_since_ = now;
}

}  // namespace goruntime
