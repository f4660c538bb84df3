// The high-follow cache loaded from a real redis-server started by the test (loopback port and
// Unix socket in a temporary directory), refreshed beside reader threads. The same file is built
// with ThreadSanitizer as test_redis_tsan (ctest backends/redis/tsan).
#include <hiredis/hiredis.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "backends/localproc/local_process.hpp"
#include "backends/redis/follow_loader.hpp"
#include "backends/redis/follow_source.hpp"
#include "backends/redis/local_redis.hpp"

using namespace redis;

namespace {

// A plain client for the test's own writes.
class Writer {
 public:
  explicit Writer(int port) : c_(redisConnect("127.0.0.1", port)) {
    REQUIRE(c_);
    REQUIRE(c_->err == 0);
  }
  ~Writer() { redisFree(c_); }
  void run(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const auto& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* r = static_cast<redisReply*>(
        redisCommandArgv(c_, static_cast<int>(argv.size()), argv.data(), lens.data()));
    REQUIRE(r);
    INFO(args[0]);
    CHECK(r->type != REDIS_REPLY_ERROR);
    freeReplyObject(r);
  }
  // Generation g: users 1..n all with score limit + 1 + g, users n+1..n+5 below the limit — the
  // whole set replaced in one MULTI/EXEC, so Redis itself never holds a mixed set.
  void write_generation(const std::string& key, int n, std::uint64_t limit, std::uint64_t g) {
    run({"MULTI"});
    run({"DEL", key});
    std::vector<std::string> zadd = {"ZADD", key};
    for (int u = 1; u <= n + 5; ++u) {
      std::uint64_t score = u <= n ? limit + 1 + g : limit / 2;
      zadd.push_back(std::to_string(score));
      zadd.push_back(std::to_string(u));
    }
    run(zadd);
    run({"EXEC"});
  }

 private:
  redisContext* c_;
};

constexpr std::uint64_t kLimit = 2000;

}  // namespace

TEST_CASE("the loader reads the high-follow accounts from a sorted set, TCP or Unix socket") {
  LocalRedis server;
  Writer w(server.port());
  w.write_generation("high_follow_accounts", 50, kLimit, 7);
  for (bool unix_socket : {false, true}) {
    RedisConfig config;
    config.port = server.port();
    if (unix_socket) config.unix_socket = server.unix_socket();
    FollowSource source(config);
    lossy::HighFollowCache cache(kLimit);
    FollowLoader loader(source, cache);
    CHECK(cache.size() == 50);  // the 5 below the limit are not fetched
    CHECK(cache.follows(1) == kLimit + 8);
    CHECK(cache.follows(51) == 0);
    CHECK(cache.loss_factor_of(1) < 1.0);
  }
}

TEST_CASE("bad configuration is one clear error, never an empty set") {
  RedisConfig nowhere;
  nowhere.port = localproc::free_loopback_port();
  CHECK_THROWS_WITH(FollowSource(nowhere), Catch::StartsWith("redis unreachable at 127.0.0.1:" +
                                                             std::to_string(nowhere.port)));

  LocalRedis server;
  Writer w(server.port());
  RedisConfig config;
  config.port = server.port();
  FollowSource source(config);
  lossy::HighFollowCache cache(kLimit);
  CHECK_THROWS_WITH(FollowLoader(source, cache), Catch::Contains("does not exist"));
  w.run({"SET", "high_follow_accounts", "not a set"});
  CHECK_THROWS_WITH(FollowLoader(source, cache), Catch::Contains("is a string, not a sorted set"));
  w.run({"DEL", "high_follow_accounts"});
  w.run({"ZADD", "high_follow_accounts", "5000", "alice"});
  CHECK_THROWS_WITH(FollowLoader(source, cache), Catch::Contains("'alice' is not a"));
  CHECK(cache.loads() == 0);
}

TEST_CASE("a failed refresh keeps the last good snapshot") {
  auto server = std::make_unique<LocalRedis>();
  Writer w(server->port());
  w.write_generation("high_follow_accounts", 20, kLimit, 1);
  RedisConfig config;
  config.port = server->port();
  FollowSource source(config);
  lossy::HighFollowCache cache(kLimit);
  FollowLoader loader(source, cache);
  REQUIRE(cache.size() == 20);
  w.write_generation("high_follow_accounts", 30, kLimit, 2);
  CHECK(loader.refresh_once());
  CHECK(cache.size() == 30);
  server->stop();
  CHECK_FALSE(loader.refresh_once());
  CHECK(loader.failures() == 1);
  CHECK_THAT(loader.last_error(), Catch::Contains("redis"));
  CHECK(cache.size() == 30);  // not emptied
  CHECK(cache.follows(1) == kLimit + 3);
}

TEST_CASE("4 readers beside 30-ms refreshes never see a partial or mixed set") {
  LocalRedis server;
  Writer w(server.port());
  constexpr int kUsers = 2000;
  w.write_generation("high_follow_accounts", kUsers, kLimit, 0);
  RedisConfig config;
  config.port = server.port();
  FollowSource source(config);
  lossy::HighFollowCache cache(kLimit);
  FollowLoader loader(source, cache, std::chrono::milliseconds(30));
  loader.start();

  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> bad{0}, views{0}, generations_seen{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      std::uint64_t last = 0;
      while (!done.load()) {
        auto set = cache.snapshot();
        // Whole and of one generation: every user present, all with the same score.
        std::uint64_t first = set->follows(1);
        bool whole = set->size() == kUsers;
        for (int u = 1; u <= kUsers && whole; u += 37) {
          whole = set->follows(static_cast<lossy::UserId>(u)) == first;
        }
        if (!whole || first <= kLimit) bad.fetch_add(1);
        if (first != last) generations_seen.fetch_add(1);
        last = first;
        views.fetch_add(1);
      }
    });
  }
  for (std::uint64_t g = 1; g <= 15; ++g) {
    w.write_generation("high_follow_accounts", kUsers, kLimit, g);
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
  }
  done.store(true);
  for (auto& r : readers) r.join();
  loader.stop();
  WARN("views " << views.load() << ", generation changes seen " << generations_seen.load()
                << ", refreshes " << loader.refreshes() << ", failures " << loader.failures());
  CHECK(bad.load() == 0);
  CHECK(loader.failures() == 0);
  CHECK(loader.refreshes() >= 5);
  CHECK(generations_seen.load() >= 4 * 3);  // each reader saw several swaps
}
