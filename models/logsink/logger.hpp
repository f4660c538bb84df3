#pragma once
// How a handler reports an error: the policy decides whether the error becomes a log line
// (a blocking write(2) through the Go process) or only a counter. The post-mortem's data
// plane logged every error; its author prefers metrics (domain.md §1.8).
//
//   co_await log.error();   // in a goroutine, after a failed memcached call
#include <cstdint>
#include <string_view>

#include "models/goruntime/go_process.hpp"
#include "models/logsink/log_sink.hpp"
#include "sim/sync.hpp"

namespace logsink {

enum class LogPolicy {
  kEveryError,   // one write(2) per error (the April 2026 data plane)
  kSampled,      // one line per `sample_one_in` errors, the rest counted
  kRateLimited,  // token bucket: at most `rate_per_second` lines/s (burst `burst`)
  kCountOnly,    // a Prometheus counter: no write at all
};
LogPolicy parse_log_policy(std::string_view text);  // "every", "sampled", "rate_limited", "count"

struct LoggerConfig {
  LogPolicy policy = LogPolicy::kEveryError;
  // assumption: the JSON record of domain.md §1.5 is ~330 bytes with its newline.
  std::int64_t line_bytes = 330;
  // assumption: encoding one slog JSON record costs ~1.5 µs of Go CPU.
  sim::Duration format_cpu = 1500;
  std::int64_t sample_one_in = 100;  // assumption: a typical 1 % sampler
  double rate_per_second = 100;      // assumption: a typical per-process log budget
  double burst = 100;
  // Go serialises writes to one file: internal/poll's FD.Write holds the fd's write lock for
  // the whole write(2) (slog's handler adds its own mutex around it). So one goroutine is in
  // the syscall and the rest park on the lock — parked goroutines hold no M. false models an
  // unlocked writer (each blocked write strands its own M), for comparison.
  bool serialize_writes = true;

  void validate() const;
};

class Logger {
 public:
  Logger(goruntime::GoProcess& go, LogSink& sink, LoggerConfig cfg);

  // One error; returns once the line (if any) is written.
  sim::Task<> error();

  std::uint64_t errors() const { return errors_; }
  std::uint64_t lines_written() const { return written_; }
  std::uint64_t lines_suppressed() const { return errors_ - written_; }
  // Goroutines parked on the fd's write lock, waiting to log.
  std::int64_t writers_waiting() const { return static_cast<std::int64_t>(fd_lock_.waiters()); }
  const LoggerConfig& config() const { return cfg_; }
  void set_policy(LogPolicy p) { cfg_.policy = p; }

 private:
  bool admit();
  sim::Task<> write_line();

  goruntime::GoProcess& go_;
  LogSink& sink_;
  LoggerConfig cfg_;
  std::uint64_t errors_ = 0;
  std::uint64_t written_ = 0;
  double tokens_;
  sim::Time tokens_at_ = 0;
  sim::Semaphore fd_lock_{1};
};

}  // namespace logsink
