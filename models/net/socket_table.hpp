#pragma once
// The kernel's TCP socket table of one network namespace: which (local IP, port) pairs and
// 4-tuples are held, by which state, and for how long (domain.md §2). It is a passive data
// structure driven by dialers and models: it never schedules events. TIME_WAIT sockets expire
// lazily — each call first drops the ones whose time is up, oldest first (they sit in one FIFO
// because every socket waits the same TIME_WAIT length) — so a million closes cost a million
// list pushes and pops, not a million timer events.
//
// Sockets belong to the namespace, not to a process: a process only *owns* its open sockets
// (SYN_SENT, ESTABLISHED); on exit the kernel closes them for it (close_all), and the
// resulting TIME_WAIT sockets stay here after the process is gone (domain.md §1.6 step 6).
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/net/address.hpp"
#include "models/net/dial_error.hpp"
#include "models/net/port_occupancy.hpp"
#include "models/net/sysctl.hpp"
#include "sim/simulation.hpp"

namespace skysim::net {

enum class SocketState : std::uint8_t { kClosed = 0, kSynSent, kEstablished, kTimeWait };
inline constexpr int kSocketStateCount = 4;
const char* state_name(SocketState s);

enum class CloseMode : std::uint8_t {
  kActive,   // we send the first FIN: TIME_WAIT for `time_wait` (domain.md §2.2)
  kPassive,  // the peer closed first: our side ends after LAST_ACK, holding nothing
  kAbort,    // SO_LINGER {on, 0}: RST, no TIME_WAIT (domain.md §2.5)
};

using OwnerId = std::uint32_t;  // the process holding a socket's file descriptor

struct SocketId {
  static constexpr std::uint32_t kNil = UINT32_MAX;
  std::uint32_t index = kNil;
  std::uint32_t gen = 0;
  bool valid() const { return index != kNil; }
  friend bool operator==(SocketId, SocketId) = default;
};

struct DialOutcome {
  SocketId socket;  // valid only when ok()
  Endpoint local;
  DialError error;
  // Ports the kernel's search examined (inet_csk_find_open_port for bind(ip, 0),
  // __inet_hash_connect for connect()). Each costs a bucket lock and a conflict check, so a
  // search on a nearly full range is slow and a failed one walks the whole range (Linux
  // net/ipv4/inet_connection_sock.c, inet_hashtables.c; Cloudflare, "connect() - why are you
  // so slow?", 2024). The kernel starts at a random offset: with f of r ports free, scattered,
  // it examines about (r + 1) / (f + 1) of them; with none free, all r.
  std::uint32_t ports_scanned = 0;
  bool ok() const { return !error; }
};

struct NetCounters {
  std::array<std::uint64_t, kSocketStateCount> sockets_by_state{};  // [kClosed] stays 0
  std::uint64_t opened = 0;
  std::uint64_t closed_active = 0;
  std::uint64_t closed_passive = 0;
  std::uint64_t closed_abort = 0;
  std::uint64_t time_wait_expired = 0;
  std::uint64_t time_wait_reused = 0;            // taken over by tcp_tw_reuse
  std::uint64_t time_wait_dropped_overflow = 0;  // tcp_max_tw_buckets reached
  std::array<std::uint64_t, kErrnoCount> dial_errors{};

  std::uint64_t time_wait() const {
    return sockets_by_state[static_cast<int>(SocketState::kTimeWait)];
  }
  std::uint64_t in_state(SocketState s) const { return sockets_by_state[static_cast<int>(s)]; }
  std::uint64_t errors(Errno e) const { return dial_errors[static_cast<int>(e)]; }
};

class NetNamespace {
 public:
  NetNamespace(sim::Simulation& sim, NetSysctl sysctl, std::string name);
  NetNamespace(const NetNamespace&) = delete;
  NetNamespace& operator=(const NetNamespace&) = delete;
  ~NetNamespace();

  // connect() without bind: the route gives the source IP (127.0.0.1 toward loopback, host_ip
  // otherwise) and the port must make a 4-tuple no other socket has and must not be held by
  // any bind()-made socket of the namespace, on any address (measured on Linux 6.18,
  // tests/models/net/test_kernel_port_rules.cpp); EADDRNOTAVAIL otherwise.
  DialOutcome connect(Endpoint remote, OwnerId owner);
  // bind(local_ip, 0) then connect(). The port is reserved at bind time and must be free of
  // every socket on local_ip, whatever its destination or state; EADDRINUSE otherwise. With
  // IP_BIND_ADDRESS_NO_PORT the port is picked at connect time under connect()'s rule instead.
  DialOutcome bind_connect(Ipv4 local_ip, Endpoint remote, OwnerId owner,
                           bool bind_address_no_port = false);
  // The handshake completed: SYN_SENT -> ESTABLISHED.
  void established(SocketId s);
  void close(SocketId s, CloseMode mode);
  // The process exited: the kernel closes every socket it still holds. Returns how many.
  std::size_t close_all(OwnerId owner, CloseMode mode = CloseMode::kActive);

  bool is_open(SocketId s) const;  // SYN_SENT or ESTABLISHED, i.e. still held by a process
  SocketState state(SocketId s) const;
  Endpoint local(SocketId s) const;
  Endpoint remote(SocketId s) const;

  // Ports a bind(ip, 0) could take now, and ports a connect() from `ip` to `remote` could
  // take without reusing a TIME_WAIT tuple.
  std::uint32_t free_bind_ports(Ipv4 ip);
  std::uint32_t free_connect_ports(Ipv4 ip, Endpoint remote);
  // Local IPs that hold at least one socket (the random-loopback dialer spreads over many).
  std::size_t local_ips_in_use() const { return ips_.size(); }

  const NetCounters& counters();  // after expiring due TIME_WAIT sockets
  std::uint64_t time_wait_count() { return counters().time_wait(); }
  std::uint64_t open_sockets(OwnerId owner) const;

  // Recounts everything from the socket slots; throws std::logic_error on any mismatch
  // (a socket in two states, a port count that disagrees with the sockets holding it).
  void check_invariants();

  const NetSysctl& sysctl() const { return sysctl_; }
  // `sysctl -w net.ipv4.tcp_tw_reuse=MODE` during a run: the next connect() applies it (the
  // kernel reads the sysctl at each port search); sockets already in TIME_WAIT keep their
  // close time, so those older than tcp_tw_reuse_delay are reusable at once. Throws
  // std::invalid_argument for a mode other than 0, 1, 2.
  void set_tw_reuse(int mode);
  // `sysctl -w net.ipv4.ip_local_port_range="LO HI"` during a run: the next port search uses
  // it (the kernel reads the range at each search, inet_sk_get_local_port_range); sockets keep
  // the ports they hold, inside the range or not, and a TIME_WAIT tuple outside it is no longer
  // a candidate for tcp_tw_reuse. Throws std::invalid_argument for an empty range.
  void set_port_range(std::uint16_t lo, std::uint16_t hi);
  const std::string& name() const { return name_; }
  void expire_time_wait();

 private:
  struct Links {
    std::uint32_t prev = SocketId::kNil;
    std::uint32_t next = SocketId::kNil;
  };
  struct ListHead {
    std::uint32_t first = SocketId::kNil;
    std::uint32_t last = SocketId::kNil;
    std::uint64_t size = 0;
  };
  struct Socket {
    Endpoint local;
    Endpoint remote;
    SocketState state = SocketState::kClosed;
    bool bind_owned = false;  // port reserved by bind(ip, 0): blocks it for every destination
    std::uint32_t gen = 0;
    OwnerId owner = 0;
    sim::Time closed_at = 0;
    Links time_wait_link;  // namespace-wide FIFO, oldest first
    Links dest_tw_link;    // this destination's FIFO (tcp_tw_reuse candidates)
    Links owner_link;
    std::uint32_t next_free = SocketId::kNil;
  };
  // The ports a connect() toward one destination from one local IP cannot use: its own
  // 4-tuples (one count per socket, any state) plus one count for each port that a bind()-made
  // socket holds anywhere in the namespace (the kernel's bind bucket is per port; see
  // bound_ports_).
  struct DestinationSpace {
    DestinationSpace(Endpoint r, std::uint16_t lo, std::uint16_t hi) : remote(r), blocked(lo, hi) {}
    Endpoint remote;
    PortOccupancy blocked;
    std::uint64_t own_sockets = 0;
    ListHead time_wait;
    // The TIME_WAIT sockets too young for tcp_tw_reuse (closed less than tcp_tw_reuse_delay
    // ago): the list's tail from `young_first` on, `young` of them (age_young keeps it).
    std::uint32_t young_first = SocketId::kNil;
    std::uint64_t young = 0;
    std::uint16_t cursor = 0;
    std::size_t registry_index = 0;  // position in NetNamespace::dest_registry_
  };
  struct LocalIp {
    LocalIp(std::uint16_t lo, std::uint16_t hi) : all(lo, hi) {}
    PortOccupancy all;  // every socket on (ip, port): the bind path's per-address rule
    std::uint16_t bind_cursor = 0;
    std::vector<std::unique_ptr<DestinationSpace>> dests;
  };

  using LinkMember = Links Socket::*;
  void list_push(ListHead& h, std::uint32_t i, LinkMember m);
  void list_unlink(ListHead& h, std::uint32_t i, LinkMember m);

  Socket& live(SocketId s, const char* op);
  const Socket* find(SocketId s) const;
  LocalIp& ip_state(Ipv4 ip);
  DestinationSpace& dest_space(LocalIp& l, Endpoint remote);
  DestinationSpace* find_dest(LocalIp& l, Endpoint remote);
  void drop_dest(LocalIp& l, DestinationSpace* d);
  // A bind()-made socket takes or leaves `port`: the first one on a port blocks it for every
  // connect() of the namespace, the last one unblocks it.
  void bound_port_add(std::uint16_t port);
  void bound_port_remove(std::uint16_t port);
  bool tw_reuse_allowed(Ipv4 local_ip, Endpoint remote) const;
  // Moves the young/old boundary of `d`'s TIME_WAIT list up to now.
  void age_young(DestinationSpace& d);
  DialOutcome connect_from(Ipv4 ip, Endpoint remote, OwnerId owner, bool has_laddr);
  DialOutcome fail(Errno e, DialStep step, bool has_laddr, Ipv4 ip, Endpoint remote,
                   std::uint32_t ports_scanned);
  std::uint32_t new_socket(Ipv4 ip, std::uint16_t port, Endpoint remote, OwnerId owner,
                           bool bind_owned);
  void enter_time_wait(std::uint32_t i);
  // Removes a socket from every index; `prune` drops per-IP and per-destination state that
  // no longer holds anything.
  void release(std::uint32_t i, bool prune = true);
  void set_state(Socket& s, SocketState to);

  sim::Simulation& sim_;
  NetSysctl sysctl_;
  std::string name_;
  std::vector<Socket> slots_;
  std::uint32_t free_head_ = SocketId::kNil;
  // Hashed: the band-aid dialer holds hundreds of thousands of source IPs at once, and a tree
  // walk per dial costs a cache miss per level. Never iterated where order could matter
  // (only check_invariants walks it).
  struct IpHash {
    std::size_t operator()(std::uint32_t ip) const {
      std::uint64_t h = ip * 0x9E3779B97F4A7C15ULL;
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<std::uint32_t, LocalIp, IpHash> ips_;
  // Per port, how many bind()-made sockets (any local IP, any state, TIME_WAIT included) hold
  // it. Linux keeps one bind bucket per (namespace, port); bind() marks it (fastreuse >= 0) and
  // __inet_hash_connect skips every marked bucket, whatever the local address and destination;
  // since 6.18 the mark is cleared when the last bind()-made socket leaves the port
  // (docs/models/net.md "The port rules").
  PortOccupancy bound_ports_;
  // Every destination space of every local IP, so a bound port can be propagated to them.
  std::vector<DestinationSpace*> dest_registry_;
  std::map<OwnerId, ListHead> owners_;
  ListHead time_wait_;
  NetCounters counters_;
};

}  // namespace skysim::net
