// The idle pools' self-check (the fuzzer and the dataplane kind call it at every tick):
// gomemcache's free list never holds more than MaxIdleConns, never the same connection twice
// (two getConn calls would then share one socket: a connection both idle and in use), and
// holds only connections the kernel still has open and the client still counts. O(idle log idle).
#include <set>
#include <string>

#include "models/memcached/client.hpp"

namespace skysim::memcached {

std::string Client::check_pool() const {
  std::set<std::uint32_t> seen;  // socket slots
  std::uint64_t idle_total = 0;
  for (std::size_t server = 0; server < pools_.size(); ++server) {
    const IdlePool& pool = pools_[server];
    if (pool.size() > pool.max_idle()) {
      return "server " + std::to_string(server) + ": " + std::to_string(pool.size()) +
             " idle connections > MaxIdleConns " + std::to_string(pool.max_idle());
    }
    for (const Conn& c : pool.idle()) {
      ++idle_total;
      if (c.server != server) return "an idle connection sits in another server's pool";
      if (!seen.insert(c.socket.index).second) {
        return "socket " + std::to_string(c.socket.index) +
               " is in an idle pool twice (handed to two users at once)";
      }
      if (!ns_.is_open(c.socket)) {
        return "idle socket " + std::to_string(c.socket.index) + " is not open in the kernel";
      }
    }
  }
  if (idle_total > open_conns_) {
    return std::to_string(idle_total) + " idle connections > " + std::to_string(open_conns_) +
           " open (idle + in use + dialing)";
  }
  return "";
}

}  // namespace skysim::memcached
