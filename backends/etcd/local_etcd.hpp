#pragma once
// An etcd server of our own for tests and benchmarks: started on free 127.0.0.1 ports (client
// and peer) with its data in a fresh temporary directory, waited for (bounded), and stopped —
// SIGTERM, then SIGKILL after a bounded wait — with the directory removed when the object goes,
// so also when a test fails or throws.
#include <sys/types.h>

#include <filesystem>
#include <string>

namespace etcd {

class LocalEtcd {
 public:
  // Throws std::runtime_error naming the cause (binary missing, did not answer within
  // ready_timeout_s, with the end of its log).
  explicit LocalEtcd(const std::string& binary = "etcd", double ready_timeout_s = 20);
  ~LocalEtcd();
  LocalEtcd(const LocalEtcd&) = delete;
  LocalEtcd& operator=(const LocalEtcd&) = delete;

  const std::string& endpoint() const { return endpoint_; }  // http://127.0.0.1:<port>
  pid_t pid() const { return pid_; }
  void stop();

 private:
  std::string log_tail() const;
  std::filesystem::path dir_;
  std::string endpoint_;
  pid_t pid_ = -1;
};

// A port nothing listens on now (bound to 127.0.0.1:0 and released).
int free_loopback_port();

}  // namespace etcd
