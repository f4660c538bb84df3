#pragma once
// String interning against real etcd from many client threads: each thread has its own HTTP
// client, random stream and allocator (uidalloc::make_allocator over etcd::KvBackend), takes
// the next string of a shared stream, and interns it in one transaction retried with
// FoundationDB's backoff. At the end the whole store is read back and the unchanged
// uidalloc::InterningChecker judges it against every acknowledgement. One run per keyspace: the
// allocators' keys (last_uid, uid_sequence/, hca/) and u/<uid> are shared by every run.
#include <cstdint>
#include <string>

#include "components/uidalloc/allocator_config.hpp"
#include "components/uidalloc/interning_checker.hpp"

namespace etcd {

struct InterningRunConfig {
  std::string endpoint;
  uidalloc::AllocatorConfig allocator;
  int clients = 8;
  std::int64_t requests = 1000;  // distinct new strings, "uri/<n>"
  std::uint64_t seed = 1;
  int max_attempts = 1000;
  void validate() const;  // throws std::invalid_argument naming the field
};

struct InterningRunResult {
  std::uint64_t acknowledged = 0;
  std::uint64_t attempts = 0;       // commits tried
  std::uint64_t not_committed = 0;  // compares failed
  std::uint64_t gave_up = 0;
  std::uint64_t failed = 0;  // collisions, exhausted sequences
  double seconds = 0;        // wall clock, first request to last acknowledgement
  uidalloc::CheckReport check;
  double throughput_per_s() const { return seconds > 0 ? acknowledged / seconds : 0; }
  double conflict_rate() const {
    return attempts ? static_cast<double>(not_committed) / static_cast<double>(attempts) : 0;
  }
};

// Throws etcd::Unreachable (one clear message) if etcd does not answer.
InterningRunResult run_interning(const InterningRunConfig& config);

}  // namespace etcd
