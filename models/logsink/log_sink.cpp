#include "models/logsink/log_sink.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace logsink {

void SinkConfig::validate() const {
  if (pipe_capacity_bytes <= 0) {
    throw std::invalid_argument("logsink config: pipe_capacity_bytes must be > 0");
  }
  if (!(drain_bytes_per_second >= 0) || std::isinf(drain_bytes_per_second)) {
    throw std::invalid_argument(
        "logsink config: drain_bytes_per_second must be >= 0 "
        "(0 = infinite)");
  }
  if (per_call < 0 || fixed_block < 0) {
    throw std::invalid_argument("logsink config: per_call and fixed_block must be >= 0");
  }
}

LogSink::LogSink(SinkConfig cfg) : cfg_(cfg) { cfg_.validate(); }

sim::Time LogSink::complete_write(sim::Time now, std::int64_t bytes) {
  if (bytes < 0) {
    throw std::invalid_argument("logsink: write of a negative byte count");
  }
  sim::Time done = now + cfg_.per_call + cfg_.fixed_block;
  if (cfg_.drain_bytes_per_second > 0) {
    // The reader consumes the pipe FIFO at a fixed rate; this write returns once all its
    // bytes fit, i.e. when the backlog behind the reader is at most the pipe capacity.
    double ns_per_byte = 1e9 / cfg_.drain_bytes_per_second;
    drained_at_ = std::max(drained_at_, now) +
                  static_cast<sim::Duration>(std::ceil(static_cast<double>(bytes) * ns_per_byte));
    auto capacity_ns =
        static_cast<sim::Duration>(static_cast<double>(cfg_.pipe_capacity_bytes) * ns_per_byte);
    sim::Time room_at = drained_at_ - capacity_ns;
    if (room_at > done) {
      ++blocked_;
      done = room_at;
    }
  }
  ++writes_;
  bytes_ += bytes;
  latency_.record(done - now);
  return done;
}

std::int64_t LogSink::backlog_bytes(sim::Time t) const {
  if (cfg_.drain_bytes_per_second <= 0 || drained_at_ <= t) {
    return 0;
  }
  return static_cast<std::int64_t>(static_cast<double>(drained_at_ - t) *
                                   cfg_.drain_bytes_per_second / 1e9);
}

}  // namespace logsink
