#include "components/errgroup/error.hpp"

#include <stdexcept>
#include <utility>

namespace errgroup {

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

}  // namespace errgroup
