// The table's self-check: every count is rebuilt from the socket slots and compared, so a
// socket in two places or a port count that drifted stops the run (DESIGN.md: assert the
// model's invariants densely). O(sockets log sockets), for tests, fuzzing and the runner's
// check at every slice: the rebuilt counts are sorted flat keys (one allocation each), not
// node maps, since at scale 1 a namespace holds ~30,000 TIME_WAIT sockets and a check that
// built three std::maps of them per slice was a third of a 10-minute run's CPU (perf).
#include <algorithm>
#include <climits>
#include <stdexcept>
#include <vector>

#include "models/net/socket_table.hpp"

namespace skysim::net {

void NetNamespace::check_invariants() {
  expire_time_wait();
  auto bad = [&](const std::string& what) {
    throw std::logic_error("net " + name_ + " invariant: " + what);
  };
  std::array<std::uint64_t, kSocketStateCount> by_state{};
  // Expected per-port counts, rebuilt from the sockets themselves: one key per open socket,
  // sorted, so a count is the length of its key's run.
  std::vector<std::uint64_t> all;                  // (local ip, local port)
  std::vector<std::uint16_t> bound;                // per port, over every local IP
  std::vector<std::pair<std::uint64_t, std::uint64_t>> own;  // (ip, remote, port)
  auto all_key = [](std::uint32_t ip, std::uint16_t port) {
    return (std::uint64_t{ip} << 16) | port;
  };
  auto own_key = [](std::uint32_t ip, Endpoint remote, std::uint16_t port) {
    return std::pair<std::uint64_t, std::uint64_t>{
        (std::uint64_t{ip} << 32) | remote.ip.value,
        (std::uint64_t{remote.port} << 16) | port};
  };
  all.reserve(slots_.size());  // (no 64 Ki per-port array: it would be zeroed at every check)
  own.reserve(slots_.size());
  std::uint64_t owned = 0;
  for (const Socket& s : slots_) {
    ++by_state[static_cast<int>(s.state)];
    if (s.state == SocketState::kClosed) {
      continue;
    }
    all.push_back(all_key(s.local.ip.value, s.local.port));
    if (s.bind_owned) {
      bound.push_back(s.local.port);
    } else {
      own.push_back(own_key(s.local.ip.value, s.remote, s.local.port));
    }
    if (s.state != SocketState::kTimeWait) {
      ++owned;
    } else if (sim_.now() - s.closed_at >= sysctl_.time_wait) {
      bad("a TIME_WAIT socket outlived time_wait");
    }
  }
  std::sort(all.begin(), all.end());
  std::sort(own.begin(), own.end());
  std::sort(bound.begin(), bound.end());
  // A key's count (the length of its run) for keys asked in increasing order (for_each walks
  // ports in order): a cursor that only moves forward, so a table's walk is linear, not a
  // binary search per port.
  auto counter = [](const auto& sorted, const auto& first_key) {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), first_key);
    return [&sorted, it](const auto& key) mutable {
      while (it != sorted.end() && *it < key) ++it;
      std::uint32_t n = 0;
      while (it != sorted.end() && *it == key) {
        ++it;
        ++n;
      }
      return n;
    };
  };
  for (int k = 1; k < kSocketStateCount; ++k) {
    if (by_state[k] != counters_.sockets_by_state[k]) {
      bad(std::string("count of ") + state_name(static_cast<SocketState>(k)) + " is off");
    }
  }
  if (time_wait_.size != counters_.time_wait()) {
    bad("TIME_WAIT list and TIME_WAIT count disagree");
  }
  // expire_time_wait() pops the list's head only: the list must be oldest first, every member
  // in TIME_WAIT, or a socket past its expiry would hide behind a younger one.
  std::uint64_t walked = 0;
  sim::Time previous = INT64_MIN;
  for (std::uint32_t i = time_wait_.first; i != SocketId::kNil;
       i = slots_[i].time_wait_link.next) {
    if (slots_[i].state != SocketState::kTimeWait) {
      bad("a socket on the TIME_WAIT list is not in TIME_WAIT");
    }
    if (slots_[i].closed_at < previous) {
      bad("TIME_WAIT list out of expiry order");
    }
    previous = slots_[i].closed_at;
    if (++walked > time_wait_.size) {
      bad("TIME_WAIT list longer than its count (a cycle?)");
    }
  }
  std::uint64_t owner_total = 0;
  for (const auto& [o, head] : owners_) {
    owner_total += head.size;
  }
  if (owner_total != owned) {
    bad("owned sockets and open sockets disagree");
  }
  std::size_t dests = 0;
  for (const auto& entry : ips_) {
    // A plain variable, not a structured binding: the lambdas below capture it, which clang
    // before 16 refuses for bindings (the libFuzzer harness builds with clang 14).
    const auto ip = entry.first;
    const LocalIp* l = &entry.second;
    if (l->all.empty()) {
      bad("an empty local IP was kept");
    }
    auto all_count = counter(all, all_key(ip, 0));
    l->all.for_each([&](std::uint16_t port, std::uint32_t n) {
      if (all_count(all_key(ip, port)) != n) {
        bad("per-port socket count is off on " + Ipv4{ip}.str() + ":" + std::to_string(port));
      }
    });
    for (const auto& d : l->dests) {
      ++dests;
      if (d->registry_index >= dest_registry_.size() ||
          dest_registry_[d->registry_index] != d.get()) {
        bad("a destination space is missing from the registry");
      }
      auto bound_count = counter(bound, std::uint16_t{0});
      auto own_count = counter(own, own_key(ip, d->remote, 0));
      d->blocked.for_each([&](std::uint16_t port, std::uint32_t n) {
        std::uint32_t want =
            (bound_count(port) > 0 ? 1 : 0) + own_count(own_key(ip, d->remote, port));
        if (want != n) {
          bad("4-tuple space count is off toward " + d->remote.str());
        }
      });
      // The young tail (tcp_tw_reuse's boundary): `young` sockets from young_first to the end,
      // none before it younger than it.
      std::uint64_t young = 0;
      bool in_tail = false;
      for (std::uint32_t i = d->time_wait.first; i != SocketId::kNil;
           i = slots_[i].dest_tw_link.next) {
        in_tail = in_tail || i == d->young_first;
        young += in_tail ? 1 : 0;
        if (!in_tail && d->young_first != SocketId::kNil &&
            slots_[i].closed_at >= slots_[d->young_first].closed_at) {
          bad("a TIME_WAIT socket toward " + d->remote.str() + " is young but before the boundary");
        }
      }
      if (young != d->young) {
        bad("young TIME_WAIT count is off toward " + d->remote.str());
      }
    }
  }
  if (dests != dest_registry_.size()) {
    bad("the destination registry holds spaces no local IP has");
  }
  auto bound_count = counter(bound, std::uint16_t{0});
  bound_ports_.for_each([&](std::uint16_t port, std::uint32_t n) {
    if (bound_count(port) != n) {
      bad("per-port bind count is off on port " + std::to_string(port));
    }
  });
  if (bound_ports_.held_ports() !=
      static_cast<std::size_t>(std::unique(bound.begin(), bound.end()) - bound.begin())) {
    bad("a bound port was left counted");
  }
  const std::uint64_t all_total = all.size();
  if (all_total != counters_.opened - counters_.closed_active - counters_.closed_passive -
                       counters_.closed_abort + counters_.time_wait()) {
    bad("sockets opened minus closed does not match the table");
  }
}

}  // namespace skysim::net
