#pragma once
// Cleanup that must run when a process leaves a scope abnormally: an exception unwinding it
// (sim::Cancelled, a model bug) or a kill destroying its frames (ProcessHandle::kill), where
// no catch block runs. Declared where a `try` would open, dismissed where it would close:
//
//   co_await lock.acquire();
//   sim::OnUnwind unlock(sim, [&] { lock.release(); });  // the writer died with its process
//   co_await go.syscall_write(sink, bytes);
//   unlock.dismiss();
//   lock.release();
//
// Its destructor runs exactly where the catch block ran: after the locals declared after it.
// Not at Simulation::shutdown() (teardown destroys every frame; no catch block ran there, and
// nothing may be woken or scheduled once the queue is cleared).
#include <utility>

#include "sim/simulation.hpp"

namespace sim {

template <class F>
class OnUnwind {
 public:
  OnUnwind(const Simulation& sim, F f) : sim_(&sim), f_(std::move(f)) {}
  OnUnwind(const OnUnwind&) = delete;
  OnUnwind& operator=(const OnUnwind&) = delete;
  ~OnUnwind() {
    if (armed_ && !sim_->shutting_down()) f_();
  }
  void dismiss() { armed_ = false; }

 private:
  const Simulation* sim_;
  F f_;
  bool armed_ = true;
};

}  // namespace sim
