#pragma once
// What a memcached operation returns to the Go code that called it, with gomemcache's error
// values and texts (domain.md §5). Payloads are not simulated: an item is its size and flags.
#include <cstdint>
#include <string>
#include <string_view>

#include "models/net/address.hpp"
#include "models/net/dial_error.hpp"

namespace skysim::memcached {

struct McItem {
  std::uint32_t value_bytes = 0;
  std::uint32_t flags = 0;
};

enum class McOp : std::uint8_t { kGet, kSet };

enum class McStatus : std::uint8_t {
  kOk,
  kCacheMiss,       // memcache.ErrCacheMiss
  kMalformedKey,    // memcache.ErrMalformedKey (> 250 bytes, space or control character)
  kNoServers,       // memcache.ErrNoServers
  kDialError,       // the dialer's *net.OpError, passed through unchanged
  kConnectTimeout,  // *memcache.ConnectTimeoutError
  kIoTimeout,       // read deadline (Timeout) passed: *net.OpError "i/o timeout"
  kConnClosed,      // the server went away under an open connection: io.EOF
  kServerError,     // an unexpected reply line, e.g. "ERROR Too many open connections"
};

struct McResult {
  McStatus status = McStatus::kOk;
  McOp op = McOp::kGet;
  McItem item;                // a Get hit
  bool hot_key = false;       // hook: the server flagged this key as hot (signalling comes later)
  net::DialError dial_error;  // kDialError
  net::Endpoint server;
  net::Endpoint local;  // the connection's source, for i/o errors

  bool ok() const { return status == McStatus::kOk; }
  // gomemcache's resumableError: the connection is still good and goes back to the pool.
  bool resumable() const {
    return status == McStatus::kCacheMiss || status == McStatus::kMalformedKey;
  }
  // err.Error() as the Go caller would log it.
  std::string error_text() const;
};

// gomemcache's legalKey: at most 250 bytes, no byte <= ' ' and no 0x7f.
bool legal_key(std::string_view key);

}  // namespace skysim::memcached
