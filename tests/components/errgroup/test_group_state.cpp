// x/sync errgroup's rules on the scheduler-free state, one test per row of the table in
// docs/components.md (line numbers: golang/sync errgroup/errgroup.go @ec11c4a). No simulator:
// a "parked" party is a flag the channel sets when it grants it.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "components/errgroup/group_state.hpp"
#include "components/errgroup/token_channel.hpp"

using errgroup::Error;
using errgroup::GroupState;
using errgroup::TokenChannel;

namespace {

struct Flag final : errgroup::Parked {
  int grants = 0;
  void granted() override { ++grants; }
};

// Go / TryGo's start once the token is in (L77).
void start(GroupState& g) { g.add(); }

// A goroutine's end: errOnce, then done() (L93-100, L36-41). False if its receive had to park.
bool finish(GroupState& g, const Error& err, Flag& parked) {
  g.record(err);
  auto sem = g.semaphore();
  if (sem && !sem->try_receive()) {
    sem->park_receiver(parked);
    return false;
  }
  g.done();
  return true;
}

}  // namespace

TEST_CASE("errgroup row 1: the zero Group has no limit and no context") {
  GroupState g(false);
  CHECK(g.limit() == -1);
  CHECK(g.semaphore() == nullptr);
  CHECK(g.context() == nullptr);
  for (int i = 0; i < 1000; ++i) {
    start(g);  // nothing to send on: Go never blocks
  }
  CHECK(g.active() == 1000);
}

TEST_CASE("errgroup row 2: SetLimit(n < 0) removes the limit and never panics") {
  GroupState g(false);
  g.set_limit(2);
  REQUIRE(g.semaphore()->try_send());
  start(g);
  CHECK_NOTHROW(g.set_limit(-1));
  CHECK(g.limit() == -1);
  Flag f;
  CHECK(finish(g, Error{}, f));  // no semaphore now: nothing to give back
  CHECK(g.active() == 0);
}

TEST_CASE("errgroup row 3: SetLimit panics only while the current semaphore holds tokens") {
  GroupState g(false);
  start(g);  // started with no limit: holds no token
  CHECK_NOTHROW(g.set_limit(3));
  REQUIRE(g.semaphore()->try_send());
  start(g);
  CHECK_THROWS_AS(g.set_limit(5), std::logic_error);
  CHECK_THROWS_WITH(g.set_limit(0),
                    "errgroup: modify limit while 1 goroutines in the group are still active");
  CHECK(g.limit() == 3);  // unchanged by the refused call
}

TEST_CASE("errgroup row 4: SetLimit swaps the channel; callers blocked on the old one stay") {
  GroupState g(false);
  g.set_limit(0);  // limit 0: every Go blocks
  auto old_sem = g.semaphore();
  CHECK_FALSE(old_sem->try_send());
  Flag caller;
  old_sem->park_sender(caller);
  g.set_limit(4);
  CHECK(g.semaphore() != old_sem);
  CHECK(g.semaphore()->capacity() == 4);
  CHECK(g.semaphore()->try_send());  // new callers get through
  CHECK(caller.grants == 0);         // the old one never does
  CHECK(old_sem->blocked_senders() == 1);
}

TEST_CASE("errgroup row 5: Go blocks on a full semaphore and is let in FIFO by a done()") {
  GroupState g(false);
  g.set_limit(2);
  auto sem = g.semaphore();
  REQUIRE(sem->try_send());
  start(g);
  REQUIRE(sem->try_send());
  start(g);
  Flag first, second;
  CHECK_FALSE(sem->try_send());
  sem->park_sender(first);
  sem->park_sender(second);
  Flag unused;
  CHECK(finish(g, Error{}, unused));  // one goroutine ends: its slot goes to `first`
  CHECK(first.grants == 1);
  CHECK(second.grants == 0);
  CHECK(sem->len() == 2);        // first's token is in: the slot is taken, not free
  CHECK_FALSE(sem->try_send());  // so a TryGo now cannot barge in
}

TEST_CASE("errgroup row 6: TryGo sends only if a token fits now, never parks") {
  GroupState g(false);
  g.set_limit(1);
  CHECK(g.semaphore()->try_send());
  CHECK_FALSE(g.semaphore()->try_send());
  CHECK(g.semaphore()->blocked_senders() == 0);
}

TEST_CASE("errgroup row 7: done() takes from the semaphore the group has when it ends") {
  GroupState g(false);
  start(g);        // no limit yet
  g.set_limit(1);  // no panic (row 3); the new channel is empty
  Flag finisher;
  CHECK_FALSE(finish(g, Error{}, finisher));  // blocks, as Go's <-g.sem does
  CHECK(g.active() == 1);                     // so Wait would not return
  CHECK(g.semaphore()->try_send());           // a Go's send goes straight to it
  CHECK(finisher.grants == 1);
  CHECK(g.semaphore()->len() == 0);  // and does not occupy the buffer
}

TEST_CASE("errgroup row 8: the first error is kept and cancels the context") {
  GroupState g(true);
  REQUIRE(g.context() != nullptr);
  start(g);
  start(g);
  Flag f;
  finish(g, Error("first"), f);
  CHECK(g.context()->cancelled());
  CHECK(g.context()->cause() == Error("first"));
  finish(g, Error("second"), f);
  CHECK(g.first_error() == Error("first"));
  CHECK(g.context()->cause() == Error("first"));
}

TEST_CASE("errgroup row 9: Wait returns the first error and cancels the context") {
  GroupState nil_group(true);
  CHECK(nil_group.finish_wait().is_nil());
  CHECK(nil_group.context()->cancelled());
  CHECK(nil_group.context()->cause() == Error("context canceled"));

  GroupState failing(false);
  start(failing);
  Flag f;
  finish(failing, Error("boom"), f);
  CHECK(failing.finish_wait() == Error("boom"));
}

TEST_CASE("errgroup row 10: more done() than starts is refused, like a negative WaitGroup") {
  GroupState g(false);
  CHECK_THROWS_WITH(g.done(), "errgroup: negative WaitGroup counter");
  CHECK_THROWS_WITH(TokenChannel(-1), Catch::Contains("capacity must be >= 0"));
  CHECK_THROWS_WITH(Error(""), "errgroup::Error: a non-nil error needs a message");
}

TEST_CASE("a withdrawn party leaves the channel's queues") {
  TokenChannel ch(0);
  Flag a, b;
  ch.park_sender(a);
  ch.park_sender(b);
  CHECK(ch.withdraw(a));
  CHECK_FALSE(ch.withdraw(a));
  CHECK(ch.try_receive());  // unbuffered: takes b's token directly
  CHECK(b.grants == 1);
  CHECK(a.grants == 0);
  CHECK(ch.len() == 0);
}
