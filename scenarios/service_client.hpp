#pragma once
// A Go service's client to another service of the scenario, as net/http's Transport keeps
// connections: per target host a LIFO list of idle connections capped at max_idle
// (MaxIdleConnsPerHost); a call takes the newest idle one or dials a new one through the
// calling host's TCP stack (net::NetNamespace: the ephemeral port range, the 4-tuple rule,
// TIME_WAIT); afterwards the connection goes back to the list if there is room, else the
// client closes it as the active closer and it stays in TIME_WAIT. A call past its deadline
// (http.Client.Timeout) closes its connection too. No cap on open connections (Go's
// MaxConnsPerHost is 0 by default), so a burst dials as many as it needs.
//
//   Response r = co_await client.call("get", bytes);
//
// The target is any host of the scenario (scenarios::Instance): its handle() does the work,
// and its reply travels back half a round trip later.
//
// `multiplexed` is gocql's pool instead: NumConns connections per host, dialed on first use
// and kept; every call is a stream on one of them (round robin), so nothing is dialed or
// closed per call, and a timed-out call abandons its stream, not its connection.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/memcached/idle_pool.hpp"
#include "models/net/dialer.hpp"
#include "models/net/socket_table.hpp"
#include "scenarios/model_registry.hpp"
#include "sim/completion.hpp"
#include "sim/deadline_list.hpp"
#include "sim/process.hpp"
#include "sim/rng.hpp"
#include "sim/sync.hpp"

namespace skysim::scenarios {

struct ServiceClientConfig {
  std::size_t max_idle = 2;  // net/http DefaultMaxIdleConnsPerHost
  sim::Duration timeout = 0;  // 0 = none (http.Client's zero value)
  sim::Duration rtt = 100 * sim::kMicrosecond;
  bool linger_zero = false;
  bool multiplexed = false;       // gocql: calls share conns_per_host connections per host
  std::size_t conns_per_host = 2;  // gocql ClusterConfig.NumConns default
};

struct ServiceClientStats {
  std::uint64_t calls = 0;
  std::uint64_t dials = 0;
  std::uint64_t dial_errors = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t refused = 0;  // the target host was down
  std::uint64_t idle_reused = 0;
  std::uint64_t closed_pool_full = 0;
  std::uint64_t closed_on_timeout = 0;
};

class ServiceClient {
 public:
  struct Target {
    Instance* host;
    net::Endpoint address;
  };
  ServiceClient(sim::Simulation& sim, net::NetNamespace& ns, net::Dialer& dialer,
                std::string caller, std::vector<Target> targets, ServiceClientConfig cfg,
                sim::Rng& pick);
  ServiceClient(const ServiceClient&) = delete;
  ServiceClient& operator=(const ServiceClient&) = delete;

  // One request to `endpoint` of a target host picked at random (kube-proxy's iptables mode
  // picks a backend at random; assumption: per call, not per connection). `owner`: the
  // calling process's descriptors (its incarnation).
  // `key`: the item the request names, if the caller knows one (Request::key); `rows`: the rows
  // a read scans, if the caller knows (Request::rows).
  // Not a coroutine itself: it picks the path. A gocql call on an established pool with no
  // modelled round trip (the cluster model holds it) is sent at once and its reply awaited in
  // the caller's frame; every other path is a coroutine of its own (the composed fan-out makes
  // millions of the first kind a run).
  class CallAwaiter;
  CallAwaiter call(std::string endpoint, std::int64_t size_bytes, net::OwnerId owner,
                   std::optional<std::uint64_t> key = std::nullopt, std::uint32_t rows = 0);

  // gocql's NewSession, run by the calling process as it starts: every target's pool is filled
  // (conns_per_host dials each, gocql's hostConnPool.fill) before its first query needs one.
  // A dial that fails is counted and leaves its place to a call, which redials. Multiplexed
  // clients only; `owner` as for call().
  sim::Task<> fill_pools(net::OwnerId owner);
  bool multiplexed() const { return cfg_.multiplexed; }

  // The calling process died: the kernel has closed its sockets; forget the idle lists.
  void crash();
  // A deploy's new build of the calling process, after crash(): its dialer and settings.
  void redeploy(net::Dialer& dialer, ServiceClientConfig cfg);

  // A dial's port search is kernel time: port_scan_ns per port examined, spent through
  // `syscall` (the calling goroutine's M in a syscall on a core) when at least `shortest`
  // (a shorter one could never lose its P). Without a hook, searches cost nothing.
  void set_port_search(sim::Duration port_scan_ns,
                       std::function<sim::Task<>(sim::Duration)> syscall, sim::Duration shortest) {
    port_scan_ns_ = port_scan_ns;
    syscall_ = std::move(syscall);
    syscall_shortest_ = std::max<sim::Duration>(1, shortest);
  }

  const ServiceClientStats& stats() const { return stats_; }
  std::size_t idle_conns() const;
  std::uint64_t open_conns() const { return open_; }
  // The first dial error's text (Go's "dial tcp ...: connect: ..."), "" if none yet.
  const std::string& first_dial_error() const { return first_dial_error_; }
  sim::Time first_dial_error_at() const { return first_dial_error_at_; }

 private:
  // Per target an empty idle list (cfg_.max_idle) and an empty multiplexed pool.
  void make_pools();
  void close(const memcached::Conn& c, net::CloseMode mode);
  // Dials one connection to target t (SYN, SYN-ACK): the socket, or the failed call's reply.
  sim::Task<std::optional<Response>> dial(std::uint32_t t, net::OwnerId owner, sim::Time deadline,
                                          memcached::Conn& conn);
  // Sends the request on an open connection and waits for the reply; nullopt past `deadline`.
  // What one call sends: its endpoint, size, key and rows.
  struct Call {
    std::string endpoint;
    std::int64_t size_bytes = 0;
    std::optional<std::uint64_t> key;
    std::uint32_t rows = 0;  // Request::rows
  };
  sim::Task<std::optional<Response>> exchange(Target& target, Call call, sim::Time deadline,
                                              const memcached::Conn& conn);
  // Hands the request to the target now; the reply's Completion (the reply travels back half a
  // round trip after the target completes it).
  std::shared_ptr<sim::Completion<Response>> send(Target& target, Call&& call, sim::Time deadline);
  // A stream on an established multiplexed connection: the exchange, and a timeout abandons
  // the stream (gocql), the connection stays.
  sim::Task<Response> stream(Target& target, Call call, sim::Time deadline);
  static sim::Task<Response> answered(Response r) { co_return r; }
  sim::Task<Response> call_pooled(std::uint32_t t, Call call, net::OwnerId owner,
                                  sim::Time deadline);
  // Dials one more connection into target t's multiplexed pool (waiters on `dialed` are told
  // when it ends): nullopt once it is in the pool, else the failed call's reply.
  sim::Task<std::optional<Response>> grow_pool(std::uint32_t t, net::OwnerId owner,
                                               sim::Time deadline);
  sim::Task<Response> call_multiplexed(std::uint32_t t, Call call, net::OwnerId owner,
                                       sim::Time deadline);

  sim::Simulation& sim_;
  net::NetNamespace& ns_;
  net::Dialer* dialer_;
  std::string caller_;
  std::vector<Target> targets_;
  ServiceClientConfig cfg_;
  sim::Rng& pick_;
  std::vector<memcached::IdlePool> idle_;  // per target: the same LIFO list as gomemcache's
  struct Multiplexed {
    // Calls that find every connection still dialing wait here for a dial to end (gocql's
    // callers wait for the pool; polling every rtt spun at one instant when rtt is 0).
    // Behind a pointer: waiters link into it, and the vector of pools may move.
    std::unique_ptr<sim::Condition> dialed = std::make_unique<sim::Condition>();
    std::vector<memcached::Conn> conns;  // established
    std::size_t dialing = 0;
    std::size_t next = 0;  // round robin
  };
  std::vector<Multiplexed> mux_;  // per target (multiplexed only)
  std::uint32_t life_ = 1;                 // bumped by crash(): older connections are gone
  std::uint64_t open_ = 0;
  std::uint64_t next_id_ = 0;
  ServiceClientStats stats_;
  std::string first_dial_error_;
  sim::Time first_dial_error_at_ = 0;
  sim::Duration port_scan_ns_ = 0;
  std::function<sim::Task<>(sim::Duration)> syscall_;
  sim::Duration syscall_shortest_ = 1;
  // The calls' deadlines (http.Client.Timeout, gocql's Timeout): one timer for all of them,
  // made on the first call that has one.
  sim::DeadlineList& deadlines();
  // The reply's wait, its deadline (if any) on the list above.
  sim::Completion<Response>::Wait wait_for_reply(sim::Completion<Response>& reply,
                                                 sim::Time deadline);
  // The list a reply's deadline goes on: none without one.
  sim::DeadlineList* reply_timer(sim::Time deadline);
  std::unique_ptr<sim::DeadlineList> deadlines_;
};

// co_await client.call(...): the Response. Either a coroutine's path (awaited as a Task), or a
// stream already sent whose reply is awaited here; past its deadline gocql abandons the
// stream (a timeout), the connection stays.
class ServiceClient::CallAwaiter {
 public:
  explicit CallAwaiter(sim::Task<Response> path) : path_(std::move(path)) {}
  CallAwaiter(ServiceClient& client, std::shared_ptr<sim::Completion<Response>> reply,
              sim::Time deadline)
      : client_(&client), reply_(std::move(reply)) {
    wait_.emplace(reply_.get(), deadline, client.reply_timer(deadline));
  }
  CallAwaiter(const CallAwaiter&) = delete;

  bool await_ready() { return !path_ && wait_->await_ready(); }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> caller) {
    if (path_) {
      path_awaiter_.emplace(std::move(*path_).operator co_await());
      return path_awaiter_->await_suspend(caller);
    }
    if (wait_->await_suspend(caller)) return std::noop_coroutine();
    return caller;
  }
  Response await_resume() {
    if (path_awaiter_) return path_awaiter_->await_resume();
    std::optional<Response> got = wait_->await_resume();
    if (!got) {
      ++client_->stats_.timeouts;  // gocql abandons the stream; the connection stays
      return Response{false, "timeout"};
    }
    return std::move(*got);
  }

 private:
  std::optional<sim::Task<Response>> path_;
  std::optional<sim::Task<Response>::Awaiter> path_awaiter_;
  ServiceClient* client_ = nullptr;
  std::shared_ptr<sim::Completion<Response>> reply_;
  std::optional<sim::Completion<Response>::Wait> wait_;
};

}  // namespace skysim::scenarios
