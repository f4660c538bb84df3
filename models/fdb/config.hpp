#pragma once
// Parameters of the FoundationDB model. Every default names its source (domain.md §6) or says
// "assumption:" with the reasoning; docs/models/fdb.md has the same table.
#include <cstdint>

#include "sim/time.hpp"

namespace fdb {

using Version = std::int64_t;

struct DatabaseConfig {
  // Latencies, uniform in [min, max] (domain.md §6.3, FDB docs' 12-machine SSD cluster).
  sim::Duration grv_latency_min = 300 * sim::kMicrosecond;
  sim::Duration grv_latency_max = 1 * sim::kMillisecond;
  sim::Duration read_latency_min = 100 * sim::kMicrosecond;
  sim::Duration read_latency_max = 1 * sim::kMillisecond;
  // Client -> proxy -> resolver -> TLog fsync -> client, excluding batching and queueing. Half
  // is spent before the proxy (assumption: request and reply legs are symmetric).
  sim::Duration commit_latency_min = 1500 * sim::kMicrosecond;
  sim::Duration commit_latency_max = 2500 * sim::kMicrosecond;
  // Commit proxy batch: opened by the first transaction, closed this long after (domain.md
  // §6.1: COMMIT_TRANSACTION_BATCH_INTERVAL 1-20 ms; the minimum, as at low load).
  sim::Duration commit_batch_interval = 1 * sim::kMillisecond;
  // Transactions per second the resolver/commit pipeline can check and log. assumption: 50,000
  // ("tens of thousands of commits/s", domain.md §6.3) for a mid-sized cluster.
  double commit_capacity_per_s = 50'000;
  // Fault injection: probability that a commit ends in commit_unknown_result (1021). Half of
  // those are lost before resolution (never applied), half lose the reply (maybe applied).
  double commit_unknown_probability = 0.0;

  // Versions advance 1e6 per second; storage and resolvers keep 5 s (domain.md §6.1).
  std::int64_t versions_per_second = 1'000'000;
  Version mvcc_window_versions = 5'000'000;

  // Client onError (domain.md §6.2): delay U[0, b), b0 = 10 ms, b <- min(2b, 1 s);
  // transaction_too_old / future_version: flat min(10 ms, max backoff).
  sim::Duration backoff_initial = 10 * sim::kMillisecond;
  sim::Duration backoff_max = 1 * sim::kSecond;
  double backoff_growth = 2.0;
  sim::Duration future_version_retry_delay = 10 * sim::kMillisecond;

  // Limits (domain.md §6.1).
  std::size_t key_size_max = 10'000;
  std::size_t value_size_max = 100'000;
  std::size_t transaction_bytes_max = 10'000'000;

  // Throws std::invalid_argument naming the field.
  void validate() const;
};

}  // namespace fdb
