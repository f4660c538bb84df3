#pragma once
// The string-interning workload (domain.md §10): N closed-loop workers, each interning the next
// string of a shared stream (new strings, and a share of repeats of earlier ones) in one
// FoundationDB transaction with the chosen allocator, retried with onError until acknowledged.
// At the end the InterningChecker inspects the final store. Tests, plots and the benchmark all
// call run_interning_experiment.
#include <cstdint>
#include <string>

#include "components/uidalloc/allocator_config.hpp"
#include "components/uidalloc/interning_checker.hpp"
#include "models/fdb/config.hpp"
#include "models/fdb/database.hpp"
#include "models/fdb/kv_backend.hpp"
#include "sim/histogram.hpp"
#include "sim/process.hpp"
#include "sim/rng.hpp"
#include "sim/time.hpp"

namespace fdb {

struct InterningConfig {
  uidalloc::AllocatorConfig allocator;
  DatabaseConfig database;
  int workers = 1;
  std::int64_t requests = 1000;  // interning requests in total, handed out in order
  // 0: run until every request is answered. Otherwise stop at this time, as a scenario's run
  // does: requests still running then are neither acknowledged nor counted in the latencies,
  // and sim_seconds is the duration (a throughput without the drain of the last requests).
  sim::Time duration = 0;
  double repeat_fraction = 0.0;  // share of requests naming an already-requested string
  std::uint64_t seed = 1;
  int max_attempts = 10'000;  // per request; a request past it is counted as given up
  bool check = true;          // run the InterningChecker on the final store
  // Throws std::invalid_argument naming the field.
  void validate() const;
};

struct InterningResults {
  std::uint64_t requests = 0;
  std::uint64_t acknowledged = 0;
  std::uint64_t created = 0;   // acknowledged with a newly allocated UID
  std::uint64_t attempts = 0;  // transactions started (first tries + retries)
  std::uint64_t not_committed = 0;
  std::uint64_t too_old = 0;
  std::uint64_t unknown_results = 0;
  std::uint64_t collisions_rejected = 0;  // xxhash collision check refused the string
  std::uint64_t allocation_failures = 0;  // every try hit an exhausted sequence
  std::uint64_t gave_up = 0;
  double sim_seconds = 0;
  sim::Histogram latency_ns;  // request: first attempt to acknowledgement
  uidalloc::CheckReport check;
  DatabaseStats database;
  std::uint64_t events = 0;
  std::uint64_t fingerprint = 0;

  double throughput_per_s() const { return sim_seconds > 0 ? acknowledged / sim_seconds : 0; }
  double created_per_s() const { return sim_seconds > 0 ? created / sim_seconds : 0; }
  // Share of commit attempts rejected with not_committed.
  double conflict_rate() const {
    return attempts ? static_cast<double>(not_committed) / static_cast<double>(attempts) : 0;
  }
  double retries_per_request() const {
    return requests ? static_cast<double>(attempts - requests) / static_cast<double>(requests) : 0;
  }
};

InterningResults run_interning_experiment(const InterningConfig& config);

// The strings interning requests name: each a new one or, with probability repeat_fraction,
// one named before (uniformly among them). The experiment, the uid-interning kind and the
// uid_alloc step all draw them this way.
class RequestStrings {
 public:
  RequestStrings(sim::Rng& rng, double repeat_fraction)
      : rng_(&rng), repeat_fraction_(repeat_fraction) {}
  std::string next() {
    std::int64_t index = distinct_;
    if (distinct_ > 0 && repeat_fraction_ > 0 && rng_->bernoulli(repeat_fraction_)) {
      index = rng_->uniform_int(0, distinct_ - 1);
    } else {
      ++distinct_;
    }
    return "uri/" + std::to_string(index);
  }

 private:
  sim::Rng* rng_;
  double repeat_fraction_;
  std::int64_t distinct_ = 0;
};

// One interning request as a client runs it (FoundationDB's Transact loop): a fresh transaction,
// retried with on_error up to max_attempts. Tallies attempts/errors/latency into `tally`.
enum class InternStatus { acknowledged, collision, allocation_failed, gave_up };
struct InternReply {
  InternStatus status = InternStatus::gave_up;
  std::uint64_t uid = 0;
  bool created = false;
};
sim::Task<InternReply> intern_with_retries(Database& db, UidAllocator& allocator, sim::Rng& rng,
                                           std::string str, int max_attempts,
                                           InterningResults& tally);

}  // namespace fdb
