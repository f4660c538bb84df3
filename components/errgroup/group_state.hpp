#pragma once
// The fields and rules of golang.org/x/sync/errgroup's Group (errgroup.go @ec11c4a; the table in
// docs/components.md maps each rule to its line), without a scheduler. A scheduler drives it:
//
//   Go / TryGo:  sem = state.semaphore(); if (sem) send a token on it (try_send, or park);
//                state.add(); start the goroutine.
//   goroutine:   err = f(); state.record(err);
//                sem = state.semaphore(); if (sem) receive a token from it (try_receive, or park);
//                if (state.done()) wake every Wait caller.
//   Wait:        once active() == 0: return state.finish_wait().
//
// Note that a goroutine gives its token back to the semaphore the group has *when it ends*, as
// x/sync's done() does: after SetLimit(-1) it gives back nothing, and after a later SetLimit(n)
// it takes from the new channel — blocking if that one is empty, as Go does.
#include <cstdint>
#include <memory>

#include "components/errgroup/error.hpp"
#include "components/errgroup/token_channel.hpp"

namespace errgroup {

class GroupState {
 public:
  // with_context: errgroup.WithContext (a derived context cancelled on the first error).
  explicit GroupState(bool with_context);

  // SetLimit: n < 0 removes the semaphore (never panics); otherwise throws std::logic_error
  // (Go's panic) if the current semaphore holds tokens, else installs a new one of capacity n.
  // Callers blocked on the old semaphore stay blocked on it.
  void set_limit(std::int64_t n);
  // Null: no limit.
  const std::shared_ptr<TokenChannel>& semaphore() const { return sem_; }
  std::int64_t limit() const { return sem_ ? sem_->capacity() : -1; }

  // wg.Add(1), once a Go or TryGo got its token.
  void add();
  // errOnce: the first non-nil error is kept and cancels the context.
  void record(const Error& err);
  // wg.Done(); true when no goroutine is left (Wait callers may go on).
  bool done();
  // Wait after wg.Wait(): cancels the context with the first error (or "context canceled").
  Error finish_wait();

  std::int64_t active() const { return active_; }  // the WaitGroup's counter
  std::int64_t started() const { return started_; }
  const Error& first_error() const { return err_; }
  // Null without WithContext.
  const std::shared_ptr<Context>& context() const { return ctx_; }

 private:
  std::shared_ptr<TokenChannel> sem_;
  std::int64_t active_ = 0;
  std::int64_t started_ = 0;
  bool has_error_ = false;
  Error err_;
  std::shared_ptr<Context> ctx_;
};

}  // namespace errgroup
