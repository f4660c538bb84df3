#pragma once
// The high-follow accounts as the write-up keeps them (domain.md §8.3): a Redis sorted set whose
// members are user ids (decimal) and whose scores are follow counts. One connection (TCP or a
// Unix socket) through hiredis; fetch() is ZRANGEBYSCORE key min +inf WITHSCORES.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "components/lossy/high_follow_cache.hpp"

namespace redis {

// Redis did not answer, or the set is not what the loader needs (missing key, wrong type, a
// member that is not a user id): never an empty set instead.
class FollowSourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RedisConfig {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string unix_socket;  // used instead of host:port when set
  std::string key = "high_follow_accounts";
  double timeout_s = 2;
  std::string where() const;  // "127.0.0.1:6379" or the socket path
};

class FollowSource {
 public:
  // Connects now; throws FollowSourceError("redis unreachable at ...: <reason>").
  explicit FollowSource(RedisConfig config);
  ~FollowSource();
  FollowSource(const FollowSource&) = delete;
  FollowSource& operator=(const FollowSource&) = delete;

  // Every account with at least `min_follows` follows. Reconnects once if the connection broke.
  std::vector<lossy::FollowCountEntry> fetch(std::uint64_t min_follows);
  const RedisConfig& config() const { return config_; }

 private:
  void connect();
  std::vector<lossy::FollowCountEntry> fetch_once(std::uint64_t min_follows);
  RedisConfig config_;
  void* context_ = nullptr;  // redisContext*
};

}  // namespace redis
