#pragma once
// What a blocking write(2) writes into (a pipe to a log collector, a file). The Go process
// asks it, at the moment the goroutine enters the syscall, when the call will return.
#include <cstdint>

#include "sim/time.hpp"

namespace goruntime {

class WriteTarget {
 public:
  virtual ~WriteTarget() = default;
  // Accepts `bytes` written at `now`; returns when write(2) returns (>= now).
  virtual sim::Time complete_write(sim::Time now, std::int64_t bytes) = 0;
};

}  // namespace goruntime
