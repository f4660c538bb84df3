#pragma once
// The process's RLIMIT_NOFILE (the fault `fd-limit`): socket(2) fails with EMFILE once the
// process holds `limit` descriptors, before any port is looked at, and Go's net.Dialer returns
// "dial tcp ADDR: socket: too many open files". Every dial of the data plane (its memcached
// client's and its gocql pool's) goes through an FdLimitedDialer sharing one FdLimit.
// Descriptors counted: the sockets those two hold open plus a fixed baseline. assumption: 7
// (stdin, stdout, stderr = the log pipe, the netpoller's epoll fd and its wake-up pipe's two
// ends, the RPC listener); the RPC server's accepted connections are not sockets in this model,
// so an accept beyond the limit is not modelled.
#include <cstdint>
#include <functional>
#include <string>

#include "models/net/dialer.hpp"

namespace skysim::dataplane {

struct FdLimit {
  static constexpr std::int64_t kBaselineFds = 7;  // assumption, above
  std::int64_t limit = 0;                           // 0 = none (the hard limit is far above)
  std::function<std::int64_t()> open_sockets;      // what the process holds now
  std::uint64_t emfile = 0;                         // dials refused

  bool exhausted() const {
    return limit > 0 && kBaselineFds + (open_sockets ? open_sockets() : 0) >= limit;
  }
};

class FdLimitedDialer final : public net::Dialer {
 public:
  explicit FdLimitedDialer(FdLimit& limit) : limit_(limit) {}
  FdLimitedDialer& over(net::Dialer& inner) {
    inner_ = &inner;
    return *this;
  }
  net::DialOutcome dial(net::NetNamespace& ns, net::Endpoint remote, net::OwnerId owner) override {
    if (limit_.exhausted()) {
      ++limit_.emfile;
      net::DialOutcome out;
      out.error = net::DialError{net::Errno::kEMFILE, net::DialStep::kSocket, false, {}, remote};
      return out;
    }
    return inner_->dial(ns, remote, owner);
  }
  std::string describe() const override { return inner_->describe(); }
  bool gives_local_address() const override { return inner_->gives_local_address(); }

 private:
  FdLimit& limit_;
  net::Dialer* inner_ = nullptr;
};

}  // namespace skysim::dataplane
