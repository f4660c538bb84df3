#pragma once
// The process's RLIMIT_NOFILE (the fault `fd-limit`): socket(2) fails with EMFILE once the
// process holds `limit` descriptors, before any port is looked at, and Go's net.Dialer returns
// "dial tcp ADDR: socket: too many open files". Every dial of a Go process (each of its
// clients') goes through an FdLimitedDialer sharing the process's one FdLimit.
// Descriptors counted: the sockets the process holds open plus a fixed baseline. assumption: 7
// (stdin, stdout, stderr = the log pipe, the netpoller's epoll fd and its wake-up pipe's two
// ends, the RPC listener); the RPC server's accepted connections are not sockets in this model,
// so an accept beyond the limit is not modelled.
#include <cstdint>
#include <functional>
#include <string>

#include "models/net/dialer.hpp"

namespace skysim::net {

struct FdLimit {
  static constexpr std::int64_t kBaselineFds = 7;  // assumption, above
  std::int64_t limit = 0;                           // 0 = none (the hard limit is far above)
  std::function<std::int64_t()> open_sockets;      // what the process holds now
  std::uint64_t emfile = 0;                         // dials refused

  bool exhausted() const {
    return limit > 0 && kBaselineFds + (open_sockets ? open_sockets() : 0) >= limit;
  }
};

class FdLimitedDialer final : public Dialer {
 public:
  explicit FdLimitedDialer(FdLimit& limit) : limit_(limit) {}
  FdLimitedDialer& over(Dialer& inner) {
    inner_ = &inner;
    return *this;
  }
  DialOutcome dial(NetNamespace& ns, Endpoint remote, OwnerId owner) override {
    if (limit_.exhausted()) {
      ++limit_.emfile;
      DialOutcome out;
      out.error = DialError{Errno::kEMFILE, DialStep::kSocket, false, {}, remote};
      return out;
    }
    return inner_->dial(ns, remote, owner);
  }
  std::string describe() const override { return inner_->describe(); }
  bool gives_local_address() const override { return inner_->gives_local_address(); }

 private:
  FdLimit& limit_;
  Dialer* inner_ = nullptr;
};

}  // namespace skysim::net
