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
  last_ = accept(now, bytes);
  const std::optional<sim::Time> done = returns_at(last_);
  // The latency as answered here; a write a stall holds at the call is recorded when it returns
  // (wait_blocked). (One already answered that a later stall moves keeps its first answer.)
  if (done) latency_.record(*done - now);
  return done.value_or(sim::kTimeMax);
}

sim::Task<> LogSink::wait_blocked(sim::Time now, sim::Time end) {
  return wait_ticket(last_, now, end);  // the ticket taken now, before anyone else writes
}

sim::Task<> LogSink::wait_ticket(Ticket t, sim::Time now, sim::Time end) {
  const bool unknown_at_call = end == sim::kTimeMax;
  sim::Time at = unknown_at_call ? now : end;
  if (!unknown_at_call) co_await sim::sleep_until(at);
  for (;;) {
    const std::optional<sim::Time> done = returns_at(t);
    if (!done) {
      co_await flowing_.wait();  // the stall holds it: no time is known until it ends
      continue;
    }
    if (*done <= at) break;  // unchanged since the last look: it has returned
    at = *done;
    co_await sim::sleep_until(at);  // a stall starting meanwhile moves it (the loop looks again)
  }
  if (unknown_at_call) latency_.record(at - now);
}

void LogSink::set_stalled(bool stalled_now, sim::Time now) {
  if (stalled_now == stalled()) return;
  if (stalled_now) {
    stalled_since_ = now;
    flowing_.reset();
  } else {
    stalled_total_ += now - stalled_since_;
    stalled_since_ = -1;
    flowing_.set();
  }
}

std::optional<sim::Time> LogSink::returns_at(const Ticket& t) const {
  if (!t.room) return t.floor;
  if (stalled() && *t.room > drain_clock(stalled_since_)) return std::nullopt;
  return std::max(t.floor, *t.room + stalled_total_ + t.extra);
}

LogSink::Ticket LogSink::accept(sim::Time now, std::int64_t bytes) {
  if (bytes < 0) {
    throw std::invalid_argument("logsink: write of a negative byte count");
  }
  const sim::Duration cost = cfg_.per_call + cfg_.fixed_block;
  Ticket t{now + cost, std::nullopt, 0};
  const sim::Time tau = drain_clock(now);
  if (cfg_.drain_bytes_per_second > 0 && cfg_.page_bytes > 0) {
    sim::Time in = paged_write(tau, bytes, 1e9 / cfg_.drain_bytes_per_second);
    if (in > tau) {
      ++blocked_;
      t.room = in;
      t.extra = cost;
    }
  } else if (cfg_.drain_bytes_per_second > 0) {
    // The reader consumes the pipe FIFO at a fixed rate; this write returns once all its
    // bytes fit, i.e. when the backlog behind the reader is at most the pipe capacity.
    double ns_per_byte = 1e9 / cfg_.drain_bytes_per_second;
    drained_at_ = std::max(drained_at_, tau) +
                  static_cast<sim::Duration>(std::ceil(static_cast<double>(bytes) * ns_per_byte));
    auto capacity_ns =
        static_cast<sim::Duration>(static_cast<double>(cfg_.pipe_capacity_bytes) * ns_per_byte);
    sim::Time room_at = drained_at_ - capacity_ns;
    // Without a stall: blocked when room comes after the call's own cost. In a stall any
    // room still ahead of the frozen reader blocks.
    if (room_at > tau + cost || (stalled() && room_at > tau)) {
      ++blocked_;
      t.room = room_at;
    }
  }
  ++writes_;
  bytes_ += bytes;
  return t;
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
  const sim::Time tau = drain_clock(t);
  if (cfg_.drain_bytes_per_second <= 0 || drained_at_ <= tau) {
    return 0;
  }
  return static_cast<std::int64_t>(static_cast<double>(drained_at_ - tau) *
                                   cfg_.drain_bytes_per_second / 1e9);
}

}  // namespace logsink
