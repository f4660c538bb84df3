#include "models/goruntime/errgroup.hpp"

#include <exception>
#include <stdexcept>

#include "sim/on_unwind.hpp"

namespace errgroup {

namespace {

sim::Process plain_goroutine(sim::Task<> body) { co_await std::move(body); }

// A finishing goroutine's `<-g.sem` that found no token: it waits for the next send (x/sync's
// done() on a semaphore SetLimit installed after this goroutine started).
struct ReceiveAwaiter {
  Group::State& s;
  std::shared_ptr<TokenChannel> sem;
  ParkedProcess w;
  sim::ProcState* p = nullptr;

  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!sim::park(h, p)) {
      return false;
    }
    w.arm(*s.sim, p, s.blocked_finishers);
    sem->park_receiver(w);
    return true;
  }
  void await_resume() {
    if (!w.is_granted && sem->withdraw(w)) {
      --s.blocked_finishers;
    }
    sim::throw_if_cancelled(p);
  }
};

// The wrapper every member goroutine runs: f, the error capture, and Go's `defer g.done()`
// (x/sync L36-41, L79, L93-100).
sim::Task<> member(std::shared_ptr<Group::State> s, sim::Task<Error> body) {
  Error err;
  {
    // A cancelled goroutine (unwound, or its process killed) or a model bug still leaves the
    // group: its error recorded, its token given back, done() — never waiting for a token.
    sim::OnUnwind leave(*s->sim, [&s, &err] {
      s->core.record(err);
      std::shared_ptr<TokenChannel> sem = s->core.semaphore();
      if (sem) sem->try_receive();
      s->done();
    });
    err = co_await std::move(body);
    leave.dismiss();
  }
  s->core.record(err);
  std::shared_ptr<TokenChannel> sem = s->core.semaphore();  // g.sem as it is now
  if (sem && !sem->try_receive()) {
    // A named awaiter, not a temporary: GCC 12 destroys an aggregate temporary of a co_await
    // twice (its shared_ptr was released twice and freed the group's semaphore under it; found by
    // ASan in "a goroutine started before SetLimit takes its token from the new semaphore").
    ReceiveAwaiter receive{*s, sem, {}, nullptr};
    co_await receive;
  }
  s->done();
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
  return GoAwaiter{state_, std::move(f), nullptr, {}, nullptr, std::nullopt};
}

Group::GoAwaiter Group::go(sim::Task<Error> body) {
  return GoAwaiter{state_, Func{}, nullptr, {}, nullptr,
                   std::optional<sim::Task<Error>>(std::move(body))};
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
  launch(member(std::move(self), std::move(body)));
}

void Group::State::done() {
  if (core.done()) {
    wait_waiters.for_each([this](sim::Waiter& w) {
      w.unlink();
      sim->wake(w.token);
    });
  }
}

}  // namespace errgroup
