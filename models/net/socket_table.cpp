#include "models/net/socket_table.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace skysim::net {
namespace {

// Ports the kernel's search examines from a random start with `free` of `range` ports free
// (DialOutcome::ports_scanned says why it matters).
std::uint32_t expected_scan(std::uint32_t range, std::uint32_t free) {
  if (free == 0) {
    return range;
  }
  return std::max<std::uint32_t>(1, (range + 1) / (free + 1));
}

}  // namespace

const char* state_name(SocketState s) {
  switch (s) {
    case SocketState::kClosed:
      return "CLOSED";
    case SocketState::kSynSent:
      return "SYN_SENT";
    case SocketState::kEstablished:
      return "ESTABLISHED";
    case SocketState::kTimeWait:
      return "TIME_WAIT";
  }
  return "?";
}

NetNamespace::NetNamespace(sim::Simulation& sim, NetSysctl sysctl, std::string name)
    : sim_(sim),
      sysctl_((sysctl.validate(), sysctl)),
      name_(std::move(name)),
      bound_ports_(sysctl_.port_lo, sysctl_.port_hi) {}

NetNamespace::~NetNamespace() = default;

// ---- intrusive index lists (slots move when the vector grows, so links are indices) ----

void NetNamespace::list_push(ListHead& h, std::uint32_t i, LinkMember m) {
  Links& l = slots_[i].*m;
  l.prev = h.last;
  l.next = SocketId::kNil;
  if (h.last != SocketId::kNil) {
    (slots_[h.last].*m).next = i;
  } else {
    h.first = i;
  }
  h.last = i;
  ++h.size;
}

void NetNamespace::list_unlink(ListHead& h, std::uint32_t i, LinkMember m) {
  Links& l = slots_[i].*m;
  if (l.prev != SocketId::kNil) {
    (slots_[l.prev].*m).next = l.next;
  } else {
    h.first = l.next;
  }
  if (l.next != SocketId::kNil) {
    (slots_[l.next].*m).prev = l.prev;
  } else {
    h.last = l.prev;
  }
  l = Links{};
  --h.size;
}

// ---- lookups ----

const NetNamespace::Socket* NetNamespace::find(SocketId s) const {
  if (!s.valid() || s.index >= slots_.size()) {
    return nullptr;
  }
  const Socket& k = slots_[s.index];
  return (k.gen == s.gen && k.state != SocketState::kClosed) ? &k : nullptr;
}

NetNamespace::Socket& NetNamespace::live(SocketId s, const char* op) {
  const Socket* k = find(s);
  if (k == nullptr) {
    throw std::logic_error("net " + name_ + ": " + op + " on a socket that no longer exists");
  }
  return const_cast<Socket&>(*k);
}

bool NetNamespace::is_open(SocketId s) const {
  const Socket* k = find(s);
  return k != nullptr && k->state != SocketState::kTimeWait;
}

SocketState NetNamespace::state(SocketId s) const {
  const Socket* k = find(s);
  return k == nullptr ? SocketState::kClosed : k->state;
}

Endpoint NetNamespace::local(SocketId s) const {
  const Socket* k = find(s);
  return k == nullptr ? Endpoint{} : k->local;
}

Endpoint NetNamespace::remote(SocketId s) const {
  const Socket* k = find(s);
  return k == nullptr ? Endpoint{} : k->remote;
}

NetNamespace::LocalIp& NetNamespace::ip_state(Ipv4 ip) {
  // Nodes of an unordered_map never move, so the reference stays valid across rehashes.
  return ips_.try_emplace(ip.value, sysctl_.port_lo, sysctl_.port_hi).first->second;
}

NetNamespace::DestinationSpace* NetNamespace::find_dest(LocalIp& l, Endpoint remote) {
  for (auto& d : l.dests) {
    if (d->remote == remote) {
      return d.get();
    }
  }
  return nullptr;
}

NetNamespace::DestinationSpace& NetNamespace::dest_space(LocalIp& l, Endpoint remote) {
  if (DestinationSpace* d = find_dest(l, remote)) {
    return *d;
  }
  auto d = std::make_unique<DestinationSpace>(remote, sysctl_.port_lo, sysctl_.port_hi);
  // Ports a bind()-made socket holds are off limits to connect()'s autobind, whatever their
  // local address and peer: one count per such port.
  bound_ports_.for_each([&](std::uint16_t port, std::uint32_t) { d->blocked.add(port); });
  d->registry_index = dest_registry_.size();
  dest_registry_.push_back(d.get());
  l.dests.push_back(std::move(d));
  return *l.dests.back();
}

void NetNamespace::drop_dest(LocalIp& l, DestinationSpace* d) {
  // Swap-remove from the registry (its order never matters: only counts are propagated).
  DestinationSpace* last = dest_registry_.back();
  dest_registry_[d->registry_index] = last;
  last->registry_index = d->registry_index;
  dest_registry_.pop_back();
  std::erase_if(l.dests, [&](const auto& p) { return p.get() == d; });
}

void NetNamespace::bound_port_add(std::uint16_t port) {
  if (bound_ports_.count(port) == 0) {
    for (DestinationSpace* d : dest_registry_) {
      d->blocked.add(port);
    }
  }
  bound_ports_.add(port);
}

void NetNamespace::bound_port_remove(std::uint16_t port) {
  bound_ports_.remove(port);
  if (bound_ports_.count(port) == 0) {
    for (DestinationSpace* d : dest_registry_) {
      d->blocked.remove(port);
    }
  }
}

void NetNamespace::set_tw_reuse(int mode) {
  NetSysctl next = sysctl_;
  next.tw_reuse = mode;
  next.validate();
  sysctl_.tw_reuse = mode;
}

void NetNamespace::set_port_range(std::uint16_t lo, std::uint16_t hi) {
  NetSysctl next = sysctl_;
  next.port_lo = lo;
  next.port_hi = hi;
  next.validate();
  sysctl_ = next;
  // Each space is recounted on its own: the order of this walk changes nothing.
  for (auto& [ip, l] : ips_) {
    l.all.set_window(lo, hi);
    for (auto& d : l.dests) d->blocked.set_window(lo, hi);
  }
  bound_ports_.set_window(lo, hi);
}

bool NetNamespace::tw_reuse_allowed(Ipv4 local_ip, Endpoint remote) const {
  // Mode 2 recognises loopback by a 127/8 source or destination (domain.md §2.4).
  return sysctl_.tw_reuse == 1 ||
         (sysctl_.tw_reuse == 2 && (local_ip.is_loopback() || remote.ip.is_loopback()));
}

// ---- the dial paths ----

DialOutcome NetNamespace::fail(Errno e, DialStep step, bool has_laddr, Ipv4 ip, Endpoint remote,
                               std::uint32_t ports_scanned) {
  ++counters_.dial_errors[static_cast<int>(e)];
  DialOutcome out;
  out.error = DialError{e, step, has_laddr, Endpoint{ip, 0}, remote};
  out.ports_scanned = ports_scanned;
  return out;
}

DialOutcome NetNamespace::connect(Endpoint remote, OwnerId owner) {
  Ipv4 src = remote.ip.is_loopback() ? kLoopback : sysctl_.host_ip;
  return connect_from(src, remote, owner, false);
}

DialOutcome NetNamespace::bind_connect(Ipv4 local_ip, Endpoint remote, OwnerId owner,
                                       bool bind_address_no_port) {
  if (bind_address_no_port) {
    return connect_from(local_ip, remote, owner, true);
  }
  expire_time_wait();
  LocalIp& l = ip_state(local_ip);
  const std::uint32_t scanned = expected_scan(l.all.range(), l.all.free_ports());
  if (l.all.free_ports() == 0) {
    return fail(Errno::kEADDRINUSE, DialStep::kBind, true, local_ip, remote, scanned);
  }
  // Next-fit from the last port handed out, like Linux's rotating offset: successive binds get
  // successive ports, and the oldest (first to expire) ports come round again first.
  std::uint16_t port = *l.all.next_free(l.bind_cursor);
  l.bind_cursor = static_cast<std::uint16_t>(port == sysctl_.port_hi ? sysctl_.port_lo : port + 1);
  std::uint32_t i = new_socket(local_ip, port, remote, owner, true);
  DialOutcome out;
  out.socket = SocketId{i, slots_[i].gen};
  out.local = slots_[i].local;
  out.ports_scanned = scanned;
  return out;
}

DialOutcome NetNamespace::connect_from(Ipv4 ip, Endpoint remote, OwnerId owner, bool has_laddr) {
  expire_time_wait();
  LocalIp& l = ip_state(ip);
  DestinationSpace& d = dest_space(l, remote);
  std::uint32_t scanned = expected_scan(d.blocked.range(), d.blocked.free_ports());
  std::uint16_t port = 0;
  if (d.blocked.free_ports() > 0) {
    port = *d.blocked.next_free(d.cursor);
  } else if (tw_reuse_allowed(ip, remote)) {
    // __inet_hash_connect takes the first port whose check_established passes, and a
    // TIME_WAIT tuple old enough to take over passes: the search stops at the first of them,
    // not at the end of the range (net/ipv4/inet_hashtables.c). assumption: the reusable
    // ones are the old enough (ports a bind() also holds are few).
    age_young(d);
    // Each TIME_WAIT tuple toward `remote` holds a port of the range: at most range of them.
    const auto old_enough = static_cast<std::uint32_t>(d.time_wait.size - d.young);
    if (old_enough > 0) scanned = expected_scan(d.blocked.range(), old_enough);
    // Oldest first: if the oldest is younger than the delay, every later one is too.
    for (std::uint32_t t = d.time_wait.first; t != SocketId::kNil;) {
      const Socket& tw = slots_[t];
      if (sim_.now() - tw.closed_at < sysctl_.tw_reuse_delay) {
        break;
      }
      std::uint32_t next = tw.dest_tw_link.next;
      if (bound_ports_.count(tw.local.port) == 0 && d.blocked.in_window(tw.local.port)) {
        port = tw.local.port;
        ++counters_.time_wait_reused;
        release(t, false);
        break;
      }
      t = next;
    }
  }
  if (port == 0) {
    // Drop what this attempt created and nothing holds.
    if (d.own_sockets == 0) {
      drop_dest(l, &d);
    }
    if (l.all.empty()) {
      ips_.erase(ip.value);
    }
    return fail(Errno::kEADDRNOTAVAIL, DialStep::kConnect, has_laddr, ip, remote, scanned);
  }
  d.cursor = static_cast<std::uint16_t>(port == sysctl_.port_hi ? sysctl_.port_lo : port + 1);
  std::uint32_t i = new_socket(ip, port, remote, owner, false);
  DialOutcome out;
  out.socket = SocketId{i, slots_[i].gen};
  out.local = slots_[i].local;
  out.ports_scanned = scanned;
  return out;
}

std::uint32_t NetNamespace::new_socket(Ipv4 ip, std::uint16_t port, Endpoint remote, OwnerId owner,
                                       bool bind_owned) {
  std::uint32_t i = free_head_;
  if (i == SocketId::kNil) {
    i = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    free_head_ = slots_[i].next_free;
  }
  Socket& s = slots_[i];
  s.local = Endpoint{ip, port};
  s.remote = remote;
  s.bind_owned = bind_owned;
  s.owner = owner;
  s.closed_at = 0;
  s.next_free = SocketId::kNil;
  set_state(s, SocketState::kSynSent);
  ++counters_.opened;

  LocalIp& l = ips_.at(ip.value);
  l.all.add(port);
  if (bind_owned) {
    bound_port_add(port);
  } else {
    DestinationSpace& d = *find_dest(l, remote);
    d.blocked.add(port);
    ++d.own_sockets;
  }
  list_push(owners_[owner], i, &Socket::owner_link);
  return i;
}

void NetNamespace::set_state(Socket& s, SocketState to) {
  --counters_.sockets_by_state[static_cast<int>(s.state)];
  ++counters_.sockets_by_state[static_cast<int>(to)];
  s.state = to;
}

void NetNamespace::established(SocketId id) {
  Socket& s = live(id, "established()");
  if (s.state != SocketState::kSynSent) {
    throw std::logic_error("net " + name_ + ": handshake completed on a socket in " +
                           state_name(s.state));
  }
  set_state(s, SocketState::kEstablished);
}

// ---- closing ----

void NetNamespace::close(SocketId id, CloseMode mode) {
  expire_time_wait();
  Socket& s = live(id, "close()");
  if (s.state == SocketState::kTimeWait) {
    throw std::logic_error("net " + name_ + ": close() of a socket already in TIME_WAIT");
  }
  // A socket still in SYN_SENT never got a peer to say FIN to: it just goes away.
  bool to_time_wait = mode == CloseMode::kActive && s.state == SocketState::kEstablished;
  switch (mode) {
    case CloseMode::kActive:
      ++counters_.closed_active;
      break;
    case CloseMode::kPassive:
      ++counters_.closed_passive;
      break;
    case CloseMode::kAbort:
      ++counters_.closed_abort;
      break;
  }
  if (to_time_wait) {
    enter_time_wait(id.index);
  } else {
    release(id.index);
  }
}

void NetNamespace::enter_time_wait(std::uint32_t i) {
  bool over_cap = sysctl_.max_tw_buckets != 0 && counters_.time_wait() >= sysctl_.max_tw_buckets;
  if (over_cap || sysctl_.time_wait == 0) {
    // tcp_max_tw_buckets reached (TCPTimeWaitOverflow): the socket is destroyed instead (§2.2).
    counters_.time_wait_dropped_overflow += over_cap ? 1 : 0;
    release(i);
    return;
  }
  Socket& s = slots_[i];
  auto owner = owners_.find(s.owner);
  list_unlink(owner->second, i, &Socket::owner_link);
  if (owner->second.size == 0) {
    owners_.erase(owner);
  }
  set_state(s, SocketState::kTimeWait);
  s.closed_at = sim_.now();
  list_push(time_wait_, i, &Socket::time_wait_link);
  if (!s.bind_owned) {
    LocalIp& l = ips_.at(s.local.ip.value);
    DestinationSpace& d = *find_dest(l, s.remote);
    list_push(d.time_wait, i, &Socket::dest_tw_link);
    if (d.young_first == SocketId::kNil) d.young_first = i;
    ++d.young;
  }
}

void NetNamespace::age_young(DestinationSpace& d) {
  while (d.young_first != SocketId::kNil &&
         sim_.now() - slots_[d.young_first].closed_at >= sysctl_.tw_reuse_delay) {
    d.young_first = slots_[d.young_first].dest_tw_link.next;
    --d.young;
  }
}

void NetNamespace::release(std::uint32_t i, bool prune) {
  Socket& s = slots_[i];
  auto l_it = ips_.find(s.local.ip.value);
  LocalIp& l = l_it->second;
  l.all.remove(s.local.port);
  if (s.bind_owned) {
    bound_port_remove(s.local.port);
  } else {
    DestinationSpace* d = find_dest(l, s.remote);
    d->blocked.remove(s.local.port);
    --d->own_sockets;
    if (s.state == SocketState::kTimeWait) {
      // The list is in closing order, so a young one leaving is at or past the boundary.
      if (d->young_first == i) {
        d->young_first = s.dest_tw_link.next;
        --d->young;
      } else if (d->young_first != SocketId::kNil &&
                 s.closed_at >= slots_[d->young_first].closed_at) {
        --d->young;
      }
      list_unlink(d->time_wait, i, &Socket::dest_tw_link);
    }
    if (prune && d->own_sockets == 0) {
      drop_dest(l, d);
    }
  }
  if (s.state == SocketState::kTimeWait) {
    list_unlink(time_wait_, i, &Socket::time_wait_link);
  } else {
    auto owner = owners_.find(s.owner);
    list_unlink(owner->second, i, &Socket::owner_link);
    if (owner->second.size == 0) {
      owners_.erase(owner);
    }
  }
  if (prune && l.all.empty()) {
    ips_.erase(l_it);
  }
  set_state(s, SocketState::kClosed);
  ++s.gen;
  s.next_free = free_head_;
  free_head_ = i;
}

std::size_t NetNamespace::close_all(OwnerId owner, CloseMode mode) {
  auto it = owners_.find(owner);
  if (it == owners_.end()) {
    return 0;
  }
  // Collect first: closing unlinks from the very list being walked.
  std::vector<SocketId> ids;
  ids.reserve(it->second.size);
  for (std::uint32_t i = it->second.first; i != SocketId::kNil; i = slots_[i].owner_link.next) {
    ids.push_back(SocketId{i, slots_[i].gen});
  }
  for (SocketId id : ids) {
    close(id, mode);
  }
#ifdef SKYSIM_PLANTED_BUGS
  // Planted for the fuzzer's self-test (docs/fuzzing.md, "Planted bugs"): closing a dead
  // owner's sockets (a process crash or OOM kill) leaves one ESTABLISHED count behind, so
  // sockets_consistent must fail.
  if (!ids.empty()) ++counters_.sockets_by_state[static_cast<int>(SocketState::kEstablished)];
#endif
  return ids.size();
}

void NetNamespace::expire_time_wait() {
  const sim::Time now = sim_.now();
  while (time_wait_.first != SocketId::kNil &&
         slots_[time_wait_.first].closed_at + sysctl_.time_wait <= now) {
    ++counters_.time_wait_expired;
    release(time_wait_.first);
  }
}

// ---- queries ----

std::uint32_t NetNamespace::free_bind_ports(Ipv4 ip) {
  expire_time_wait();
  auto it = ips_.find(ip.value);
  return it == ips_.end() ? sysctl_.port_count() : it->second.all.free_ports();
}

std::uint32_t NetNamespace::free_connect_ports(Ipv4 ip, Endpoint remote) {
  expire_time_wait();
  auto it = ips_.find(ip.value);
  if (it == ips_.end()) {
    return bound_ports_.free_ports();
  }
  if (DestinationSpace* d = find_dest(it->second, remote)) {
    return d->blocked.free_ports();
  }
  return bound_ports_.free_ports();
}

const NetCounters& NetNamespace::counters() {
  expire_time_wait();
  return counters_;
}

std::uint64_t NetNamespace::open_sockets(OwnerId owner) const {
  auto it = owners_.find(owner);
  return it == owners_.end() ? 0 : it->second.size;
}

}  // namespace skysim::net
