#include "backends/redis/follow_loader.hpp"

namespace redis {

namespace {
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

FollowLoader::FollowLoader(FollowSource& source, lossy::HighFollowCache& cache,
                           std::chrono::milliseconds period)
    : source_(&source), cache_(&cache), period_(period) {
  if (period.count() <= 0) throw std::invalid_argument("redis: refresh period must be > 0");
  // The first load is not optional: its error reaches the caller.
  cache_->load(source_->fetch(cache_->reasonable_limit() + 1), now_ns());
  refreshes_ = 1;
}

FollowLoader::~FollowLoader() { stop(); }

void FollowLoader::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void FollowLoader::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool FollowLoader::refresh_once() {
  std::lock_guard lock(mu_);
  try {
    // Fetch and build off to the side; readers keep the old snapshot until the one swap.
    cache_->load(source_->fetch(cache_->reasonable_limit() + 1), now_ns());
    ++refreshes_;
    return true;
  } catch (const std::exception& e) {
    ++failures_;
    last_error_ = e.what();
    return false;
  }
}

void FollowLoader::run() {
  for (;;) {
    {
      std::unique_lock lock(mu_);
      if (wake_.wait_for(lock, period_, [this] { return stopping_; })) return;
    }
    refresh_once();
  }
}

std::uint64_t FollowLoader::refreshes() const {
  std::lock_guard lock(mu_);
  return refreshes_;
}
std::uint64_t FollowLoader::failures() const {
  std::lock_guard lock(mu_);
  return failures_;
}
std::string FollowLoader::last_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace redis
