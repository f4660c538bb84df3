#pragma once
// Where a Go process's log lines go: each line is one write(2) on a blocking fd (os.Stderr, a
// pipe to the container runtime's log collector). The fd is a pipe of finite capacity drained
// at a finite bandwidth; while it has room a write costs only the syscall, when it is full the
// writer blocks until enough has drained. A blocked write keeps its goroutine's M in the
// syscall, which is how a slow sink grows threads (domain.md §1.6 step 3, §3.2).
#include <cstdint>
#include <deque>
#include <optional>

#include "models/goruntime/write_target.hpp"
#include "sim/histogram.hpp"
#include "sim/sync.hpp"
#include "sim/time.hpp"

namespace logsink {

struct SinkConfig {
  // assumption (domain.md §3.2 "recalled"): Linux default pipe capacity, 16 pages.
  std::int64_t pipe_capacity_bytes = 64 * 1024;
  // assumption: a log collector draining ~20 MB/s (a container runtime's json-file driver
  // on a busy node); 0 = infinite (the pipe never fills).
  double drain_bytes_per_second = 20e6;
  // assumption: the kernel cost of a small write(2) to a pipe with room (~2 µs).
  sim::Duration per_call = 2 * sim::kMicrosecond;
  // A fixed extra blocking time per call (a slow terminal, a synchronous disk), 0 = none.
  sim::Duration fixed_block = 0;
  // Linux's pipe is a ring of pipe_capacity / page_bytes buffers of one page each (fs/pipe.c):
  // a write merges into the last buffer only when it fits there whole, else it needs a free
  // buffer, and a buffer is free only once the reader has consumed all of it. So room comes
  // a page at a time: a writer blocked on a full pipe waits for the reader to finish a page
  // (4096 B at 100 KB/s: 41 ms), not for its own few bytes (1 ms) — long enough for sysmon's
  // backed-off 10-ms tick to see it and hand its P off (docs/testbed.md, measured). 0 = a
  // byte-granular pipe (room grows with every byte read: the model before this setting).
  std::int64_t page_bytes = 0;

  void validate() const;  // throws std::invalid_argument naming the field
};

class LogSink : public goruntime::WriteTarget {
 public:
  explicit LogSink(SinkConfig cfg);

  // While the reader is stalled and the write must wait for room, the return is not known
  // yet: kTimeMax. A write that waits for room (last_write_blocked) returns when
  // wait_blocked() does, which follows the reader's stalls.
  sim::Time complete_write(sim::Time now, std::int64_t bytes) override;
  bool last_write_blocked() const override { return last_.room.has_value(); }
  sim::Task<> wait_blocked(sim::Time now, sim::Time end) override;

  // Fault hook: the reader (the log collector) stops consuming at `now` (true) and goes on
  // at `now` (false). The drain is computed on a drain clock that stands still while the
  // reader does, so every drain instant after a stall's start moves by the stall's length;
  // writers already blocked are re-timed by wait_blocked.
  void set_stalled(bool stalled, sim::Time now);
  bool stalled() const { return stalled_since_ >= 0; }
  sim::Duration stalled_ns() const { return stalled_total_; }  // of finished stalls

  // Bytes in the pipe at `t` (given the writes accepted so far).
  std::int64_t backlog_bytes(sim::Time t) const;
  std::uint64_t writes() const { return writes_; }
  std::uint64_t blocked_writes() const { return blocked_; }  // had to wait for pipe room
  std::int64_t bytes_written() const { return bytes_; }
  // How long each write(2) blocked its caller.
  const sim::Histogram& write_latency() const { return latency_; }
  const SinkConfig& config() const { return cfg_; }

 private:
  // One accepted write: it returns at max(floor, real(room) + extra), room on the drain
  // clock (nullopt: it found room at once).
  struct Ticket {
    sim::Time floor;
    std::optional<sim::Time> room;
    sim::Duration extra;
  };
  Ticket accept(sim::Time now, std::int64_t bytes);
  // When the write returns in real time; nullopt while a stall holds it.
  std::optional<sim::Time> returns_at(const Ticket& t) const;
  // The drain clock at real time t (t >= the last stall's start).
  sim::Time drain_clock(sim::Time t) const {
    return (stalled() ? std::min(t, stalled_since_) : t) - stalled_total_;
  }

  SinkConfig cfg_;
  Ticket last_{0, std::nullopt, 0};  // the last write accepted
  sim::Task<> wait_ticket(Ticket t, sim::Time now, sim::Time end);
  sim::Time stalled_since_ = -1;
  sim::Duration stalled_total_ = 0;
  sim::Event flowing_{true};
  // Times below are on the drain clock (real time less the stalls before it).
  sim::Time drained_at_ = 0;  // when the reader will have consumed every byte written so far
  // page_bytes > 0: the last pipe_capacity / page_bytes buffers, oldest first, each with the
  // time the reader will have consumed all of it; the last one's fill and when it was taken.
  std::deque<sim::Time> pages_freed_at_;
  std::int64_t last_fill_ = 0;
  sim::Time last_taken_at_ = 0;
  sim::Time paged_write(sim::Time now, std::int64_t bytes, double ns_per_byte);
  std::uint64_t writes_ = 0;
  std::uint64_t blocked_ = 0;
  std::int64_t bytes_ = 0;
  sim::Histogram latency_;
};

}  // namespace logsink
