#include "models/fdb/config.hpp"

#include <stdexcept>
#include <string>

namespace fdb {

namespace {
void check_range(const char* name, sim::Duration lo, sim::Duration hi) {
  if (lo < 0 || hi < lo) {
    throw std::invalid_argument(std::string("fdb: ") + name + "_min/_max must satisfy 0 <= min" +
                                " <= max (got " + std::to_string(lo) + ", " +
                                std::to_string(hi) + " ns)");
  }
}
}  // namespace

void DatabaseConfig::validate() const {
  check_range("grv_latency", grv_latency_min, grv_latency_max);
  check_range("read_latency", read_latency_min, read_latency_max);
  check_range("commit_latency", commit_latency_min, commit_latency_max);
  auto fail = [](const std::string& what) { throw std::invalid_argument("fdb: " + what); };
  if (commit_batch_interval < 0) {
    fail("commit_batch_interval must be >= 0");
  }
  if (!(commit_capacity_per_s > 0)) {
    fail("commit_capacity_per_s must be > 0");
  }
  if (!(commit_unknown_probability >= 0 && commit_unknown_probability <= 1)) {
    fail("commit_unknown_probability must be in [0, 1]");
  }
  if (versions_per_second <= 0 || mvcc_window_versions <= 0) {
    fail("versions_per_second and mvcc_window_versions must be > 0");
  }
  if (backoff_initial <= 0 || backoff_max < backoff_initial || backoff_growth < 1) {
    fail("backoff needs 0 < backoff_initial <= backoff_max and backoff_growth >= 1");
  }
  if (future_version_retry_delay < 0) {
    fail("future_version_retry_delay must be >= 0");
  }
}

}  // namespace fdb
