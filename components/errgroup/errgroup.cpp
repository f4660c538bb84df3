#include "components/errgroup/errgroup.hpp"

#include <stdexcept>

namespace errgroup {

namespace {

sim::Process plain_goroutine(sim::Task<> body) { co_await std::move(body); }

// The wrapper every member goroutine runs: Go's `defer g.done()` plus the error capture.
sim::Task<> member(std::shared_ptr<Group::State> s, sim::Task<Error> body) {
  Error err;
  try {
    err = co_await std::move(body);
  } catch (...) {
    // A cancelled goroutine (its process was killed) or a model bug still leaves the group.
    s->finished(Error{});
    throw;
  }
  s->finished(err);
}

}  // namespace

Error::Error(std::string text) : text_(std::move(text)) {
  if (text_.empty()) {
    throw std::invalid_argument("errgroup::Error: a non-nil error needs a message");
  }
}

void Context::cancel(const Error& cause) {
  if (cancelled_) {
    return;
  }
  cancelled_ = true;
  cause_ = cause;
}

Group::Group(sim::Simulation& sim) : Group(sim, Launcher{}) {}

Group::Group(sim::Simulation& sim, Launcher launch) : state_(std::make_shared<State>()) {
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
  Group g(sim, std::move(launch));
  g.state_->ctx = std::make_shared<Context>();
  return g;
}

void Group::set_limit(std::int64_t n) {
  if (state_->active != 0) {
    throw std::logic_error("errgroup: modify limit while " + std::to_string(state_->active) +
                           " goroutines in the group are still active");
  }
  // Go swaps in a new semaphore channel; callers blocked on the old one stay blocked.
  state_->go_waiters.for_each([this](SlotWaiter& w) {
    w.unlink();
    state_->orphaned_waiters.push_back(w);
  });
  state_->limit = n < 0 ? -1 : n;
}

Group::GoAwaiter Group::go(Func f) {
  if (!f) {
    throw std::invalid_argument("errgroup: Go called with an empty function");
  }
  return GoAwaiter{state_, std::move(f), {}, nullptr};
}

bool Group::try_go(Func f) {
  if (!f) {
    throw std::invalid_argument("errgroup: TryGo called with an empty function");
  }
  if (!state_->slot_free()) {
    return false;
  }
  state_->start(state_, std::move(f), false);
  return true;
}

Group::WaitAwaiter Group::wait() { return WaitAwaiter{state_, {}, nullptr}; }

std::int64_t Group::active() const { return state_->active; }
std::int64_t Group::limit() const { return state_->limit; }
std::int64_t Group::blocked_callers() const { return state_->blocked; }
std::int64_t Group::started() const { return state_->started; }
std::shared_ptr<Context> Group::context() const { return state_->ctx; }

void Group::State::start(std::shared_ptr<State> self, Func f, bool slot_reserved) {
  // A slot handed over by finished() was already counted; a fresh start takes one now.
  if (!slot_reserved) {
    ++active;
  }
  ++started;
  launch(member(std::move(self), f()));
}

void Group::State::finished(const Error& err) {
  --active;
  if (err && !has_error) {
    has_error = true;
    first_error = err;
    if (ctx) {
      ctx->cancel(err);
    }
  }
  if (!go_waiters.empty() && slot_free()) {
    // Hand the slot to the longest-blocked Go caller (a channel's FIFO of blocked senders).
    SlotWaiter& w = go_waiters.pop_front();
    --blocked;
    w.granted = true;
    ++active;  // reserved now, so a TryGo in between cannot take it
    sim->wake(w.token);
  }
  if (active == 0) {
    wait_waiters.for_each([this](sim::Waiter& w) {
      w.unlink();
      sim->wake(w.token);
    });
  }
}

}  // namespace errgroup
