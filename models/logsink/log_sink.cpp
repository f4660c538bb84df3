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
  if (page_bytes < 0 || page_bytes > pipe_capacity_bytes) {
    throw std::invalid_argument(
        "logsink config: page_bytes must be 0 (byte-granular) or 1..pipe_capacity_bytes");
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
  if (cfg_.drain_bytes_per_second > 0 && cfg_.page_bytes > 0) {
    sim::Time in = paged_write(now, bytes, 1e9 / cfg_.drain_bytes_per_second);
    if (in > now) {
      ++blocked_;
      done = in + cfg_.per_call + cfg_.fixed_block;
    }
  } else if (cfg_.drain_bytes_per_second > 0) {
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

// When the last byte of a write is in the pipe (fs/pipe.c pipe_write): into the last buffer if
// the pipe is not empty and the whole write fits there, else page by page into free buffers,
// each waiting for the reader to have emptied the buffer `slots` back. Writers are served in
// the order they call (the wait queue is FIFO, and each writer that leaves room wakes the
// next), so the times computed at each call hold.
sim::Time LogSink::paged_write(sim::Time now, std::int64_t bytes, double ns_per_byte) {
  const std::int64_t page = cfg_.page_bytes;
  const auto slots = static_cast<std::size_t>(std::max<std::int64_t>(1, cfg_.pipe_capacity_bytes / page));
  auto add = [&](sim::Time at, std::int64_t n) {
    drained_at_ = std::max(drained_at_, at) +
                  static_cast<sim::Duration>(std::ceil(static_cast<double>(n) * ns_per_byte));
    pages_freed_at_.back() = drained_at_;
  };
  sim::Time at = std::max(now, last_taken_at_);
  if (!pages_freed_at_.empty() && drained_at_ > at && last_fill_ + bytes <= page) {
    last_fill_ += bytes;  // merged into the last buffer
    add(at, bytes);
    return at;
  }
  std::int64_t left = std::max<std::int64_t>(bytes, 1);
  while (left > 0) {
    const std::int64_t n = std::min(left, page);
    // A free buffer: fewer than `slots` in the pipe, i.e. the one `slots` back has been read.
    if (pages_freed_at_.size() >= slots) {
      at = std::max(at, pages_freed_at_[pages_freed_at_.size() - slots]);
    }
    pages_freed_at_.push_back(at);
    while (pages_freed_at_.size() > slots) pages_freed_at_.pop_front();
    last_fill_ = n;
    last_taken_at_ = at;
    add(at, n);
    left -= n;
  }
  return at;
}

std::int64_t LogSink::backlog_bytes(sim::Time t) const {
  if (cfg_.drain_bytes_per_second <= 0 || drained_at_ <= t) {
    return 0;
  }
  return static_cast<std::int64_t>(static_cast<double>(drained_at_ - t) *
                                   cfg_.drain_bytes_per_second / 1e9);
}

}  // namespace logsink
