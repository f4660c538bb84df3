#pragma once
// A redis-server of our own for the tests: listening on 127.0.0.1 at a free port and on a Unix
// socket in its temporary directory, no persistence, stopped and removed with the object.
#include <memory>
#include <string>

#include "backends/localproc/local_process.hpp"

namespace redis {

class LocalRedis {
 public:
  explicit LocalRedis(const std::string& binary = "redis-server", double ready_timeout_s = 20);
  int port() const { return port_; }
  const std::string& unix_socket() const { return socket_; }
  void stop() { process_->stop(); }

 private:
  int port_ = 0;
  std::string socket_;
  std::unique_ptr<localproc::LocalProcess> process_;
};

}  // namespace redis
