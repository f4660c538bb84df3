#pragma once
// Go's `error` and the derived context of errgroup.WithContext.
#include <string>

namespace errgroup {

// Go's `error`: the empty value is nil.
class Error {
 public:
  Error() = default;
  explicit Error(std::string text);
  bool is_nil() const { return text_.empty(); }
  explicit operator bool() const { return !text_.empty(); }
  const std::string& text() const { return text_; }
  friend bool operator==(const Error&, const Error&) = default;

 private:
  std::string text_;
};

// The derived context of WithContext: cancelled with the first error, or when Wait returns.
class Context {
 public:
  bool cancelled() const { return cancelled_; }
  // context.Cause: the first error, or "context canceled" when Wait returned without one.
  const Error& cause() const { return cause_; }
  // Only the first cancel counts (context.WithCancelCause).
  void cancel(const Error& cause);

 private:
  bool cancelled_ = false;
  Error cause_;
};

}  // namespace errgroup
