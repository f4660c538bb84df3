#include "models/memcached/protocol.hpp"

namespace skysim::memcached {

bool legal_key(std::string_view key) {
  if (key.size() > 250) {
    return false;
  }
  for (char ch : key) {
    auto c = static_cast<unsigned char>(ch);
    if (c <= ' ' || c == 0x7f) {
      return false;
    }
  }
  return true;
}

std::string McResult::error_text() const {
  switch (status) {
    case McStatus::kOk:
      return "";
    case McStatus::kCacheMiss:
      return "memcache: cache miss";
    case McStatus::kMalformedKey:
      return "malformed: key is too long or contains invalid characters";
    case McStatus::kNoServers:
      return "memcache: no servers configured or available";
    case McStatus::kDialError:
      return dial_error.text();
    case McStatus::kConnectTimeout:
      return "memcache: connect timeout to " + server.str();
    case McStatus::kIoTimeout:
      return "read tcp " + local.str() + "->" + server.str() + ": i/o timeout";
    case McStatus::kConnClosed:
      return "EOF";
    case McStatus::kServerError:
      return op == McOp::kGet ? "memcache: unexpected line in get response: "
                                "\"ERROR Too many open connections\\r\\n\""
                              : "memcache: unexpected response line from \"set\": "
                                "\"ERROR Too many open connections\\r\\n\"";
  }
  return "unknown memcache error";
}

}  // namespace skysim::memcached
