#include "backends/etcd/local_etcd.hpp"

#include "backends/etcd/client.hpp"

namespace etcd {

LocalEtcd::LocalEtcd(const std::string& binary, double ready_timeout_s) {
  endpoint_ = "http://127.0.0.1:" + std::to_string(free_loopback_port());
  std::string peer = "http://127.0.0.1:" + std::to_string(free_loopback_port());
  Client probe(endpoint_, 500);
  process_ = std::make_unique<localproc::LocalProcess>(
      "etcd",
      [&](const std::filesystem::path& dir) {
        return std::vector<std::string>{binary,
                                        "--name=skysim",
                                        "--data-dir=" + (dir / "data").string(),
                                        "--listen-client-urls=" + endpoint_,
                                        "--advertise-client-urls=" + endpoint_,
                                        "--listen-peer-urls=" + peer,
                                        "--initial-advertise-peer-urls=" + peer,
                                        "--initial-cluster=skysim=" + peer,
                                        "--log-level=warn"};
      },
      [&] {
        try {
          probe.range({"skysim/probe", "", 0, 0, false});
          return true;
        } catch (const Unreachable&) {
          return false;
        }
      },
      ready_timeout_s);
}

}  // namespace etcd
