#include "models/goruntime/errgroup.hpp"

#include <exception>
#include <stdexcept>


namespace errgroup {

namespace {

sim::Process plain_goroutine(sim::Task<> body) { co_await std::move(body); }

// The wrapper every member goroutine started by go(f) or go(task) runs: f, then x/sync's
// `defer g.done()` (L36-41, L79, L93-100).
sim::Task<> member(Member joined, sim::Task<Error> body) {
  // A local, not the parameter: an unwinding goroutine leaves the group here, before the
  // goroutine around this task ends (a parameter would live until the frame is freed).
  Member m = std::move(joined);
  Error err = co_await std::move(body);
  co_await m.finish(std::move(err));
}

}  // namespace

Group::Group(sim::Simulation& sim) : Group(sim, Launcher{}) {}

Group::Group(sim::Simulation& sim, Launcher launch) : Group(sim, std::move(launch), false) {}

Group::Group(sim::Simulation& sim, Launcher launch, bool with_context)
    : state_(std::make_shared<State>(with_context)) {
  state_->sim = &sim;
  if (launch) {
    state_->launch = std::move(launch);
  } else {
    sim::Simulation* s = &sim;
    state_->launch = [s](sim::Task<> body) {
      s->spawn(plain_goroutine(std::move(body)), "goroutine");
    };
  }
}

Group Group::with_context(sim::Simulation& sim, Launcher launch) {
  return Group(sim, std::move(launch), true);
}

void Group::set_limit(std::int64_t n) { state_->core.set_limit(n); }

Group::GoAwaiter Group::go(Func f) {
  if (!f) {
    throw std::invalid_argument("errgroup: Go called with an empty function");
  }
  return GoAwaiter(state_, std::move(f), std::nullopt);
}

Group::GoAwaiter Group::go(sim::Task<Error> body) {
  return GoAwaiter(state_, Func{}, std::optional<sim::Task<Error>>(std::move(body)));
}

bool Group::try_go(Func f) {
  if (!f) {
    throw std::invalid_argument("errgroup: TryGo called with an empty function");
  }
  const std::shared_ptr<TokenChannel>& sem = state_->core.semaphore();
  if (sem && !sem->try_send()) {
    return false;
  }
  state_->start(state_, std::move(f));
  return true;
}

Group::WaitAwaiter Group::wait() { return WaitAwaiter{state_, {}, nullptr}; }

std::int64_t Group::active() const { return state_->core.active(); }
std::int64_t Group::limit() const { return state_->core.limit(); }
std::int64_t Group::blocked_callers() const { return state_->blocked; }
std::int64_t Group::blocked_finishers() const { return state_->blocked_finishers; }
std::int64_t Group::started() const { return state_->core.started(); }
std::shared_ptr<Context> Group::context() const { return state_->core.context(); }

void Group::State::start(std::shared_ptr<State> self, Func f) {
  start(std::move(self), f());
}

void Group::State::start(std::shared_ptr<State> self, sim::Task<Error> body) {
  core.add();
  launch(member(Member(std::move(self)), std::move(body)));
}

void Group::State::done() {
  if (core.done()) {
    wait_waiters.for_each([this](sim::Waiter& w) {
      w.unlink();
      sim->wake(w.token);
    });
  }
}

// ---------------------------------------------------------------- a member's end

Member::~Member() {
  if (!s_ || finished_ || s_->sim->shutting_down()) return;
  // Unwound before finish(): give the token back if one is there, never wait (x/sync's
  // deferred done of a goroutine that did not return normally).
  if (const std::shared_ptr<TokenChannel>& sem = s_->core.semaphore()) sem->try_receive();
  leave();
}

void Member::leave() {
  finished_ = true;
  s_->done();
}

Member::Finish Member::finish(Error err) { return Finish(*this, std::move(err)); }

bool Member::Finish::await_ready() {
  m->s_->core.record(err);
  sem = m->s_->core.semaphore();  // g.sem as it is now
  if (sem && !sem->try_receive()) return false;
  m->leave();
  return true;
}

void Member::Finish::park() {
  w.arm(*m->s_->sim, p, m->s_->blocked_finishers);
  sem->park_receiver(w);
  parked = true;
}

void Member::Finish::withdraw() {
  if (parked && !w.is_granted && sem->withdraw(w)) --m->s_->blocked_finishers;
  parked = false;
}

void Member::Finish::await_resume() {
  if (m->finished_) return;  // a token was there: left in await_ready
  withdraw();
  if (p != nullptr) sim::throw_if_cancelled(p);  // ~Member leaves the group
  m->leave();                                    // granted a sender's token
}

}  // namespace errgroup
