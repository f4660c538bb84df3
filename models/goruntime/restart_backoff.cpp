#include "models/goruntime/restart_backoff.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace goruntime {

RestartPolicyKind parse_restart_policy(std::string_view text) {
  if (text == "fixed") return RestartPolicyKind::kFixed;
  if (text == "crash_loop_backoff") return RestartPolicyKind::kCrashLoopBackOff;
  throw std::invalid_argument("restart_policy: unknown value '" + std::string(text) +
                              "' (fixed, crash_loop_backoff)");
}

const char* to_string(RestartPolicyKind k) {
  return k == RestartPolicyKind::kFixed ? "fixed" : "crash_loop_backoff";
}

void RestartPolicy::validate() const {
  if (backoff_initial <= 0) throw std::invalid_argument("restart_backoff_initial: must be > 0");
  if (backoff_max < backoff_initial) {
    throw std::invalid_argument("restart_backoff_max: must be >= restart_backoff_initial");
  }
}

void CrashLoopBackOff::next(sim::Time event, sim::Time now) {
  if (!entry_ || expired(event)) {
    entry_ = Entry{p_.backoff_initial, now};
    return;
  }
  entry_->backoff = std::min(2 * entry_->backoff, p_.backoff_max);
  entry_->last_update = now;
}

sim::Time CrashLoopBackOff::restart_at(sim::Time finished) {
  // doBackOff at the exit: no entry or an expired one means no back-off — start now.
  if (!entry_ || expired(finished)) {
    next(finished, finished);
    return finished;
  }
  // Refused until FinishedAt + backoff; the pod worker comes back then. Housekeeping's GC may
  // have dropped the entry by then (not updated for 2 x max), and Next() starts it afresh.
  const sim::Time start = finished + entry_->backoff;
  if (start - entry_->last_update > 2 * p_.backoff_max) {
    entry_.reset();
  }
  next(finished, start);
  return start;
}

}  // namespace goruntime
