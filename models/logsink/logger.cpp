#include "models/logsink/logger.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/on_unwind.hpp"
#include "sim/trace_span.hpp"

namespace logsink {

LogPolicy parse_log_policy(std::string_view text) {
  if (text == "every") {
    return LogPolicy::kEveryError;
  }
  if (text == "sampled") {
    return LogPolicy::kSampled;
  }
  if (text == "rate_limited") {
    return LogPolicy::kRateLimited;
  }
  if (text == "count") {
    return LogPolicy::kCountOnly;
  }
  throw std::invalid_argument("unknown log policy '" + std::string(text) +
                              "' (expected every, sampled, rate_limited or count)");
}

void LoggerConfig::validate() const {
  if (line_bytes <= 0) {
    throw std::invalid_argument("logger config: line_bytes must be > 0");
  }
  if (format_cpu < 0) {
    throw std::invalid_argument("logger config: format_cpu must be >= 0");
  }
  if (sample_one_in < 1) {
    throw std::invalid_argument("logger config: sample_one_in must be >= 1");
  }
  if (!(rate_per_second > 0) || !(burst >= 1)) {
    throw std::invalid_argument("logger config: rate_per_second must be > 0 and burst >= 1");
  }
}

Logger::Logger(goruntime::GoProcess& go, LogSink& sink, LoggerConfig cfg)
    : go_(go), sink_(sink), cfg_(cfg) {
  cfg_.validate();
  tokens_ = cfg_.burst;
}

bool Logger::admit() {
  switch (cfg_.policy) {
    case LogPolicy::kEveryError:
      return true;
    case LogPolicy::kSampled:
      return (errors_ - 1) % static_cast<std::uint64_t>(cfg_.sample_one_in) == 0;
    case LogPolicy::kRateLimited: {
      sim::Time now = go_.simulation().now();
      tokens_ =
          std::min(cfg_.burst, tokens_ + sim::to_seconds(now - tokens_at_) * cfg_.rate_per_second);
      tokens_at_ = now;
      if (tokens_ >= 1.0) {
        tokens_ -= 1.0;
        return true;
      }
      return false;
    }
    case LogPolicy::kCountOnly:
      return false;
  }
  return false;
}

sim::Task<> Logger::error() {
  // log.Error's slice on the caller's lane (traced only), its write(2) inside.
  sim::TraceSpan span = co_await sim::trace_span(go_.sim(), "log.Error", "log");
  ++errors_;
  if (!admit()) {
    co_return;
  }
  ++written_;
  co_await go_.cpu(cfg_.format_cpu);
  if (!cfg_.serialize_writes) {
    co_await go_.syscall_write(sink_, cfg_.line_bytes);
    co_return;
  }
  co_await fd_lock_.acquire();
  {
    // The writer died with its process (unwound or killed): the next process's writers go on.
    sim::OnUnwind unlock(go_.simulation(), [this] { fd_lock_.release(); });
    co_await go_.syscall_write(sink_, cfg_.line_bytes);
    unlock.dismiss();
  }
  fd_lock_.release();
}

}  // namespace logsink
