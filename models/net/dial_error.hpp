#pragma once
// A failed dial, rendered exactly as Go's net.OpError prints it (domain.md §1.5, §2.7):
//   dial tcp 127.32.0.1:0->127.0.0.1:11211: bind: address already in use
//   dial tcp 127.0.0.1:11211: connect: cannot assign requested address
// The `laddr->` part appears only when the dialer supplied a local address. The text is built
// on demand: a port-exhausted host fails millions of dials and most are only counted.
#include <cstdint>
#include <string>

#include "models/net/address.hpp"

namespace skysim::net {

enum class Errno : std::uint8_t {
  kNone = 0,
  kEADDRINUSE,     // bind(ip, 0): no port free on that local IP
  kEADDRNOTAVAIL,  // connect() autobind: no port free for the 4-tuple
  kECONNREFUSED,   // nothing listening (RST to the SYN)
  kEMFILE,         // socket(): the process is at its RLIMIT_NOFILE (the fd-limit fault)
};
inline constexpr int kErrnoCount = 5;

const char* errno_text(Errno e);  // strerror(3) wording, as Go prints it
const char* errno_name(Errno e);  // "EADDRINUSE"

enum class DialStep : std::uint8_t { kBind, kConnect, kSocket };

struct DialError {
  Errno code = Errno::kNone;
  DialStep step = DialStep::kConnect;
  bool has_laddr = false;  // the dialer gave a local address (Go prints laddr->raddr)
  Endpoint laddr;          // port 0 when the kernel was to choose it
  Endpoint raddr;

  explicit operator bool() const { return code != Errno::kNone; }
  std::string text() const;
};

}  // namespace skysim::net
