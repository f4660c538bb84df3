#pragma once
// Where a Go process's log lines go: each line is one write(2) on a blocking fd (os.Stderr, a
// pipe to the container runtime's log collector). The fd is a pipe of finite capacity drained
// at a finite bandwidth; while it has room a write costs only the syscall, when it is full the
// writer blocks until enough has drained. A blocked write keeps its goroutine's M in the
// syscall, which is how a slow sink grows threads (domain.md §1.6 step 3, §3.2).
#include <cstdint>
#include <deque>

#include "models/goruntime/write_target.hpp"
#include "sim/histogram.hpp"
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

  sim::Time complete_write(sim::Time now, std::int64_t bytes) override;

  // Bytes in the pipe at `t` (given the writes accepted so far).
  std::int64_t backlog_bytes(sim::Time t) const;
  std::uint64_t writes() const { return writes_; }
  std::uint64_t blocked_writes() const { return blocked_; }  // had to wait for pipe room
  std::int64_t bytes_written() const { return bytes_; }
  // How long each write(2) blocked its caller.
  const sim::Histogram& write_latency() const { return latency_; }
  const SinkConfig& config() const { return cfg_; }

 private:
  SinkConfig cfg_;
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
