#pragma once
// An etcd server of our own for tests and benchmarks (localproc::LocalProcess): free 127.0.0.1
// client and peer ports, its data in a fresh temporary directory, waited for (bounded), stopped
// and removed when the object goes — so also when a test fails or throws.
#include <memory>
#include <string>

#include "backends/localproc/local_process.hpp"

namespace etcd {

class LocalEtcd {
 public:
  // Throws std::runtime_error naming the cause (not installed, exited, did not answer).
  explicit LocalEtcd(const std::string& binary = "etcd", double ready_timeout_s = 20);
  const std::string& endpoint() const { return endpoint_; }  // http://127.0.0.1:<port>
  void stop() { process_->stop(); }

 private:
  std::string endpoint_;
  std::unique_ptr<localproc::LocalProcess> process_;
};

using localproc::free_loopback_port;

}  // namespace etcd
