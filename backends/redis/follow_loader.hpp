#pragma once
// Keeps a lossy::HighFollowCache loaded from Redis: one fetch at construction (which throws if
// Redis is unreachable or the key is wrong, so a service never starts on an empty set), then a
// refresh thread every `period` (30 s in the write-up) that builds a new snapshot and swaps it in
// atomically. A failed refresh keeps the last good snapshot and is counted, never replaced by an
// empty one.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "backends/redis/follow_source.hpp"
#include "components/lossy/high_follow_cache.hpp"

namespace redis {

class FollowLoader {
 public:
  FollowLoader(FollowSource& source, lossy::HighFollowCache& cache,
               std::chrono::milliseconds period = std::chrono::seconds(30));
  ~FollowLoader();  // stops the thread
  FollowLoader(const FollowLoader&) = delete;
  FollowLoader& operator=(const FollowLoader&) = delete;

  // Starts the refresh thread (once).
  void start();
  void stop();
  // One refresh now, on the calling thread: true if a new snapshot was published.
  bool refresh_once();

  std::uint64_t refreshes() const;
  std::uint64_t failures() const;
  std::string last_error() const;

 private:
  void run();
  FollowSource* source_;
  lossy::HighFollowCache* cache_;
  std::chrono::milliseconds period_;
  mutable std::mutex mu_;  // guards the fields below and serializes refreshes (one connection)
  std::condition_variable wake_;
  bool stopping_ = false;
  std::uint64_t refreshes_ = 0;
  std::uint64_t failures_ = 0;
  std::string last_error_;
  std::thread thread_;
};

}  // namespace redis
