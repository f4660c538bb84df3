#pragma once
// When a crashed container runs again: either a fixed delay, or the kubelet's CrashLoopBackOff
// as Kubernetes computes it (docs/models/goruntime.md "Restarts"). Read from kubelet:
//   pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff: the key is the container's stable
//     key (pod name, namespace, UID, container name, hash of the container spec); the clock
//     starts at the exited container's FinishedAt; while Now - FinishedAt < backoff the start
//     is refused (CrashLoopBackOff) and the pod worker is requeued for FinishedAt + backoff;
//     otherwise backOff.Next(key, FinishedAt) and the container starts.
//   client-go util/flowcontrol/backoff.go: Next starts an entry at the initial period, else
//     doubles it up to the max; lastUpdate = Now (the start). hasExpired: FinishedAt -
//     lastUpdate > 2 x max resets the entry; GC() (kubelet housekeeping) drops entries not
//     updated for 2 x max.
//   pkg/kubelet/kubelet.go: backOffPeriod = 10 s, MaxContainerBackOff = 300 s.
// So a container that keeps crashing starts again after 0 (first exit: no entry yet), 10, 20,
// 40, 80, 160, 300, 300, ... s, and one that ran more than 2 x 300 s = 10 min since its last
// start begins again at 0 then 10 s. A new build (deploy) is a new spec hash: a fresh key.
#include <optional>
#include <string_view>

#include "sim/time.hpp"

namespace goruntime {

enum class RestartPolicyKind {
  kFixed,             // restart `fixed_delay` after every crash
  kCrashLoopBackOff,  // the kubelet's per-container exponential back-off
};
RestartPolicyKind parse_restart_policy(std::string_view text);  // throws std::invalid_argument
const char* to_string(RestartPolicyKind k);

// The fixed delay itself is GoConfig::restart_delay.
struct RestartPolicy {
  RestartPolicyKind kind = RestartPolicyKind::kFixed;
  sim::Duration backoff_initial = 10 * sim::kSecond;  // kubelet backOffPeriod
  sim::Duration backoff_max = 300 * sim::kSecond;     // kubelet MaxContainerBackOff
  void validate() const;  // throws std::invalid_argument naming the field
};

class CrashLoopBackOff {
 public:
  explicit CrashLoopBackOff(RestartPolicy p) : p_(p) {}
  // The container exited at `finished`: when the kubelet starts it again (kCrashLoopBackOff;
  // the policy's kind is the caller's to check). Records the start.
  sim::Time restart_at(sim::Time finished);
  // A new build: a new container spec hash, hence a new back-off key.
  void forget() { entry_.reset(); }
  // The back-off a refused start reports ("back-off 40s restarting failed container"); 0 when
  // no entry is held.
  sim::Duration current() const { return entry_ ? entry_->backoff : 0; }
  const RestartPolicy& policy() const { return p_; }

 private:
  struct Entry {
    sim::Duration backoff;
    sim::Time last_update;  // when Next() last ran: the container's last start
  };
  bool expired(sim::Time event) const {
    return event - entry_->last_update > 2 * p_.backoff_max;
  }
  void next(sim::Time event, sim::Time now);

  RestartPolicy p_;
  std::optional<Entry> entry_;
};

}  // namespace goruntime
