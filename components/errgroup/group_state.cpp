#include "components/errgroup/group_state.hpp"

#include <stdexcept>
#include <string>

namespace errgroup {

GroupState::GroupState(bool with_context) {
  if (with_context) {
    ctx_ = std::make_shared<Context>();
  }
}

void GroupState::set_limit(std::int64_t n) {
  if (n < 0) {
    sem_ = nullptr;
    return;
  }
  // len(g.sem): tokens held in the current semaphore, not every goroutine of the group —
  // goroutines started while there was no limit hold none.
  if (std::int64_t held = sem_ ? sem_->len() : 0; held != 0) {
    throw std::logic_error("errgroup: modify limit while " + std::to_string(held) +
                           " goroutines in the group are still active");
  }
  sem_ = std::make_shared<TokenChannel>(n);
}

void GroupState::add() {
  ++active_;
  ++started_;
}

void GroupState::record(const Error& err) {
  if (!err || has_error_) {
    return;
  }
  has_error_ = true;
  err_ = err;
  if (ctx_) {
    ctx_->cancel(err);
  }
}

bool GroupState::done() {
  if (active_ <= 0) {
    throw std::logic_error("errgroup: negative WaitGroup counter");  // Go's sync panic
  }
  --active_;
  return active_ == 0;
}

Error GroupState::finish_wait() {
  if (ctx_) {
    ctx_->cancel(has_error_ ? err_ : Error("context canceled"));
  }
  return err_;
}

}  // namespace errgroup
