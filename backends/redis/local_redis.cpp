#include "backends/redis/local_redis.hpp"

#include <hiredis/hiredis.h>

namespace redis {

LocalRedis::LocalRedis(const std::string& binary, double ready_timeout_s)
    : port_(localproc::free_loopback_port()) {
  process_ = std::make_unique<localproc::LocalProcess>(
      "redis",
      [&](const std::filesystem::path& dir) {
        socket_ = (dir / "redis.sock").string();
        return std::vector<std::string>{binary,
                                        "--port",
                                        std::to_string(port_),
                                        "--bind",
                                        "127.0.0.1",
                                        "--unixsocket",
                                        socket_,
                                        "--dir",
                                        dir.string(),
                                        "--save",
                                        "",
                                        "--appendonly",
                                        "no",
                                        "--daemonize",
                                        "no"};
      },
      [&] {
        timeval tv{0, 200'000};
        redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
        bool up = false;
        if (c && !c->err) {
          auto* r = static_cast<redisReply*>(redisCommand(c, "PING"));
          up = r && r->type == REDIS_REPLY_STATUS;
          if (r) freeReplyObject(r);
        }
        if (c) redisFree(c);
        return up;
      },
      ready_timeout_s);
}

}  // namespace redis
