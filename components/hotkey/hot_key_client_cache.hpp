#pragma once
// The caller's side of hot-key signalling (Tejo, domain.md §9.1): when a reply says "hot", the
// client keeps the value locally for `ttl` and stops asking the server, so a server's load for
// that key drops to about one request per TTL per client. TTL is not published (domain.md §9.2):
// a parameter. Time is passed in (ns) so the component needs no simulator.
#include <cstdint>
#include <map>
#include <stdexcept>

namespace hotkey {

template <class Key>
class HotKeyClientCache {
 public:
  explicit HotKeyClientCache(std::int64_t ttl_ns) : ttl_ns_(ttl_ns) {
    if (ttl_ns_ <= 0) {
      throw std::invalid_argument("hotkey: client cache ttl must be > 0");
    }
  }

  // True when a fresh local copy exists (the request never reaches the server).
  bool lookup(const Key& key, std::int64_t now_ns) {
    auto it = expiry_.find(key);
    if (it == expiry_.end()) {
      ++misses_;
      return false;
    }
    if (it->second <= now_ns) {
      expiry_.erase(it);
      ++misses_;
      return false;
    }
    ++hits_;
    return true;
  }

  // Called with the server's reply; only hot replies are kept.
  void on_reply(const Key& key, bool hot, std::int64_t now_ns) {
    if (hot) {
      expiry_[key] = now_ns + ttl_ns_;
    }
  }

  std::int64_t ttl_ns() const { return ttl_ns_; }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  std::size_t size() const { return expiry_.size(); }

 private:
  std::int64_t ttl_ns_;
  std::map<Key, std::int64_t> expiry_;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

}  // namespace hotkey
