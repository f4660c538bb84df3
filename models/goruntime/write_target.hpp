#pragma once
// What a blocking write(2) writes into (a pipe to a log collector, a file). The Go process
// asks it, at the moment the goroutine enters the syscall, when the call will return.
#include <cstdint>

#include "sim/process.hpp"
#include "sim/time.hpp"

namespace goruntime {

class WriteTarget {
 public:
  virtual ~WriteTarget() = default;
  // Accepts `bytes` written at `now`; returns when write(2) returns (>= now).
  virtual sim::Time complete_write(sim::Time now, std::int64_t bytes) = 0;
  // A target whose reader can stop (a stalled log collector) cannot promise the time it gave
  // for a write that must wait for room: when last_write_blocked() is true right after
  // complete_write, the caller awaits wait_blocked(now, end) instead of sleeping until `end`;
  // it returns when write(2) does, however the reader's stops moved it.
  virtual bool last_write_blocked() const { return false; }
  virtual sim::Task<> wait_blocked(sim::Time now, sim::Time end) {
    (void)now;
    co_await sim::sleep_until(end);
  }
};

}  // namespace goruntime
