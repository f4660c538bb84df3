#pragma once
// Per user: fan-out writes addressed to it (offered) and writes actually made (delivered), and
// the invariant over them, fanout.delivered-le-offered (issue 25 item 1): no user is delivered
// more writes than were addressed to it. The number of users over the line right now is kept
// at the two increments, so the check the run makes at every tick (and the locating replay at
// every event) is O(1) instead of a walk over every user; only a violation walks, to name the
// lowest such user, as the walk did (tests/models/fanout/test_delivery_book.cpp).
#include <cstdint>
#include <string>
#include <vector>

namespace fanout {

class DeliveryBook {
 public:
  explicit DeliveryBook(std::size_t users) : offered_(users, 0), delivered_(users, 0) {}
  void offer(std::uint32_t u) {
    if (delivered_[u] == offered_[u] + 1) --over_;  // caught up: no longer over
    ++offered_[u];
  }
  void deliver(std::uint32_t u) {
    if (++delivered_[u] == offered_[u] + 1) ++over_;
  }
  std::uint64_t offered(std::uint32_t u) const { return offered_[u]; }
  std::uint64_t delivered(std::uint32_t u) const { return delivered_[u]; }
  // "" or the lowest user delivered more writes than addressed.
  std::string error() const {
    if (over_ == 0) return "";
    for (std::uint32_t u = 0; u < delivered_.size(); ++u) {
      if (delivered_[u] > offered_[u]) {
        return "user " + std::to_string(u) + " got more writes than addressed";
      }
    }
    return "";
  }

 private:
  std::vector<std::uint32_t> offered_;
  std::vector<std::uint32_t> delivered_;
  std::size_t over_ = 0;  // users with delivered_ > offered_
};

}  // namespace fanout
