#pragma once
// gomemcache's free list for one server address: a LIFO stack of idle connections capped at
// MaxIdleConns (domain.md §5). getConn pops the most recently returned connection; putFreeConn
// pushes unless the stack is full, in which case the caller closes the connection.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "models/net/socket_table.hpp"

namespace skysim::memcached {

struct Conn {
  net::SocketId socket;
  net::Endpoint local;
  std::uint32_t server = 0;       // index in the client's server list
  std::uint32_t client_life = 0;  // the client incarnation that dialed it (see Client::crash)
  std::uint32_t server_life = 0;  // the server incarnation that accepted it
  bool rejected = false;          // over the server's max_connections
};

class IdlePool {
 public:
  explicit IdlePool(std::size_t max_idle) : max_idle_(max_idle) {}

  std::optional<Conn> pop() {
    if (idle_.empty()) {
      return std::nullopt;
    }
    Conn c = idle_.back();
    idle_.pop_back();
    return c;
  }
  // False when the pool is full: the caller must close the connection.
  bool push(const Conn& c) {
    if (idle_.size() >= max_idle_) {
      return false;
    }
    idle_.push_back(c);
    return true;
  }
  std::vector<Conn> drain() { return std::exchange(idle_, {}); }

  std::size_t size() const { return idle_.size(); }
  const std::vector<Conn>& idle() const { return idle_; }  // oldest first (for checks)
  std::size_t max_idle() const { return max_idle_; }

 private:
  std::size_t max_idle_;
  std::vector<Conn> idle_;
};

}  // namespace skysim::memcached
