#include "scenarios/service_client.hpp"

#include <stdexcept>

#include "sim/on_unwind.hpp"
#include "sim/pool_allocator.hpp"

namespace skysim::scenarios {

ServiceClient::ServiceClient(sim::Simulation& sim, net::NetNamespace& ns, net::Dialer& dialer,
                             std::string caller, std::vector<Target> targets,
                             ServiceClientConfig cfg, sim::Rng& pick)
    : sim_(sim),
      ns_(ns),
      dialer_(&dialer),
      caller_(std::move(caller)),
      targets_(std::move(targets)),
      cfg_(cfg),
      pick_(pick) {
  make_pools();
}

void ServiceClient::make_pools() {
  idle_.clear();
  idle_.reserve(targets_.size());
  for (std::size_t i = 0; i < targets_.size(); ++i) idle_.emplace_back(cfg_.max_idle);
  mux_.clear();
  mux_.resize(targets_.size());
}

std::size_t ServiceClient::idle_conns() const {
  std::size_t n = 0;
  for (const auto& p : idle_) n += p.size();
  return n;  // a multiplexed pool has no idle list: its connections are shared, never idle
}

void ServiceClient::crash() {
  for (auto& p : idle_) p.drain();
  for (auto& m : mux_) m = Multiplexed{};
  ++life_;
  open_ = 0;
}

void ServiceClient::redeploy(net::Dialer& dialer, ServiceClientConfig cfg) {
  if (open_ != 0)
    throw std::logic_error("ServiceClient::redeploy: the old process's connections are open");
  dialer_ = &dialer;
  cfg_ = cfg;
  make_pools();
}

void ServiceClient::close(const memcached::Conn& c, net::CloseMode mode) {
  if (c.client_life != life_) return;  // closed by the kernel when the process died
  if (mode == net::CloseMode::kActive && cfg_.linger_zero) mode = net::CloseMode::kAbort;
  ns_.close(c.socket, mode);
  --open_;
}

ServiceClient::CallAwaiter ServiceClient::call(std::string endpoint, std::int64_t size_bytes,
                                               net::OwnerId owner,
                                               std::optional<std::uint64_t> key,
                                               std::uint32_t rows) {
  ++stats_.calls;
  if (targets_.empty()) return CallAwaiter(answered(Response{false, "no_targets"}));
  const auto t = static_cast<std::uint32_t>(
      targets_.size() == 1 ? 0
                           : pick_.uniform_int(0, static_cast<std::int64_t>(targets_.size()) - 1));
  const sim::Time deadline = cfg_.timeout > 0 ? sim_.now() + cfg_.timeout : sim::kTimeMax;
  Call c{std::move(endpoint), size_bytes, key, rows};
  if (!cfg_.multiplexed) return CallAwaiter(call_pooled(t, std::move(c), owner, deadline));
  const Multiplexed& mux = mux_[t];
  const bool pool_full = !mux.conns.empty() && mux.conns.size() + mux.dialing >= cfg_.conns_per_host;
  if (!pool_full || !targets_[t].host->up()) {
    return CallAwaiter(call_multiplexed(t, std::move(c), owner, deadline));
  }
  // The pool is whole and its peer up: a stream on the next connection (round robin).
  ++mux_[t].next;
  if (cfg_.rtt / 2 > 0 || deadline - sim_.now() <= 0) {
    return CallAwaiter(stream(targets_[t], std::move(c), deadline));
  }
  // No time on the wire: the request is the target's now, as stream() would hand it over.
  return CallAwaiter(*this, send(targets_[t], std::move(c), deadline), deadline);
}

sim::Task<std::optional<Response>> ServiceClient::dial(std::uint32_t t, net::OwnerId owner,
                                                       sim::Time deadline,
                                                       memcached::Conn& conn) {
  Target& target = targets_[t];
  ++stats_.dials;
  net::DialOutcome d = dialer_->dial(ns_, target.address, owner);
  // The search ran inside bind(2)/connect(2); its outcome was fixed when it began (the
  // kernel holds the bucket lock from finding a port to reserving it), so a found port is
  // this client's socket from then on. A process killed in the call unwinds from it; the
  // kernel has closed its sockets and crash() forgot them.
  const sim::Duration kernel = port_scan_ns_ * static_cast<sim::Duration>(d.ports_scanned);
  const bool charge = syscall_ && kernel >= syscall_shortest_;
  if (!d.ok()) {
    if (charge) co_await syscall_(kernel);
    ++stats_.dial_errors;
    if (first_dial_error_.empty()) {
      first_dial_error_ = d.error.text();
      first_dial_error_at_ = sim_.now();
    }
    co_return Response{false, "dial_error"};
  }
  conn.socket = d.socket;
  conn.local = d.local;
  conn.server = t;
  conn.client_life = life_;
  ++open_;
  if (charge) co_await syscall_(kernel);
  const std::uint32_t life = life_;
  // SYN, SYN-ACK (the ACK rides the request). A handshake that outlasts the deadline is
  // given up in SYN_SENT: no TIME_WAIT.
  if (deadline - sim_.now() < cfg_.rtt) {
    co_await sim::sleep(deadline - sim_.now());
    if (life == life_) {
      ns_.close(conn.socket, net::CloseMode::kAbort);
      --open_;
    }
    ++stats_.timeouts;
    co_return Response{false, "timeout"};
  }
  co_await sim::sleep(cfg_.rtt);
  if (life != life_) co_return Response{false, "crashed"};
  if (!target.host->up()) {
    ns_.close(conn.socket, net::CloseMode::kAbort);  // RST to the SYN
    --open_;
    ++stats_.refused;
    co_return Response{false, "refused"};
  }
  ns_.established(conn.socket);
  co_return std::nullopt;
}

std::shared_ptr<sim::Completion<Response>> ServiceClient::send(Target& target, Call&& call,
                                                               sim::Time deadline) {
  // The caller may have stopped waiting by the time the reply is back (the Completion keeps
  // the late reply harmless).
  auto reply = sim::make_pooled<sim::Completion<Response>>();
  Request r;
  r.id = ++next_id_;
  r.client = caller_;
  r.endpoint = std::move(call.endpoint);
  r.size_bytes = call.size_bytes;
  r.key = call.key;
  r.rows = call.rows;
  r.deadline = deadline;
  const sim::Duration back = cfg_.rtt / 2;
  r.done = [reply, back, &sim = sim_](const Response& resp) {
    if (!reply->completed()) reply->complete_at(sim, sim.now() + back, resp);
  };
  r.issued_at = sim_.now();
  target.host->handle(std::move(r));
  return reply;
}

sim::Task<std::optional<Response>> ServiceClient::exchange(Target& target, Call call,
                                                           sim::Time deadline,
                                                           const memcached::Conn& conn) {
  std::optional<Response> got;
  sim::OnUnwind close_it(sim_, [this, &conn] {
    if (!cfg_.multiplexed) close(conn, net::CloseMode::kActive);
  });
  if (deadline - sim_.now() > cfg_.rtt / 2) {
    if (cfg_.rtt / 2 > 0) co_await sim::sleep(cfg_.rtt / 2);  // the request on the wire
    std::shared_ptr<sim::Completion<Response>> reply = send(target, std::move(call), deadline);
    got = co_await wait_for_reply(*reply, deadline);
  } else {
    co_await sim::sleep(deadline - sim_.now());
  }
  close_it.dismiss();
  co_return got;
}

sim::Task<Response> ServiceClient::stream(Target& target, Call call, sim::Time deadline) {
  if (deadline - sim_.now() > cfg_.rtt / 2) {
    if (cfg_.rtt / 2 > 0) co_await sim::sleep(cfg_.rtt / 2);  // the request on the wire
    CallAwaiter reply(*this, send(target, std::move(call), deadline), deadline);
    co_return co_await reply;
  }
  co_await sim::sleep(deadline - sim_.now());
  ++stats_.timeouts;  // as an abandoned stream's (CallAwaiter)
  co_return Response{false, "timeout"};
}

sim::Completion<Response>::Wait ServiceClient::wait_for_reply(sim::Completion<Response>& reply,
                                                              sim::Time deadline) {
  return sim::Completion<Response>::Wait(&reply, deadline, reply_timer(deadline));
}

sim::DeadlineList* ServiceClient::reply_timer(sim::Time deadline) {
  return deadline == sim::kTimeMax ? nullptr : &deadlines();
}

sim::DeadlineList& ServiceClient::deadlines() {
  if (!deadlines_) deadlines_ = std::make_unique<sim::DeadlineList>(sim_, "client.deadline");
  return *deadlines_;
}

sim::Task<Response> ServiceClient::call_pooled(std::uint32_t t, Call call, net::OwnerId owner,
                                               sim::Time deadline) {
  Target& target = targets_[t];
  memcached::Conn conn;
  if (std::optional<memcached::Conn> idle = idle_[t].pop()) {
    ++stats_.idle_reused;
    conn = *idle;
  } else if (std::optional<Response> failed = co_await dial(t, owner, deadline, conn)) {
    co_return *failed;
  }
  if (!target.host->up()) {  // an idle connection to a host that died reads EOF
    close(conn, net::CloseMode::kPassive);
    ++stats_.refused;
    co_return Response{false, "refused"};
  }
  std::optional<Response> got = co_await exchange(target, std::move(call), deadline, conn);
  if (!got) {
    // net/http cancels the request by closing its connection: this side closes first.
    ++stats_.timeouts;
    ++stats_.closed_on_timeout;
    close(conn, net::CloseMode::kActive);
    co_return Response{false, "timeout"};
  }
  if (conn.client_life == life_ && !idle_[t].push(conn)) {
    ++stats_.closed_pool_full;
    close(conn, net::CloseMode::kActive);
  }
  co_return *got;
}

sim::Task<std::optional<Response>> ServiceClient::grow_pool(std::uint32_t t, net::OwnerId owner,
                                                            sim::Time deadline) {
  Multiplexed& mux = mux_[t];
  const std::uint32_t life = life_;
  memcached::Conn conn;
  ++mux.dialing;
  std::optional<Response> failed = co_await dial(t, owner, deadline, conn);
  if (life != life_) co_return Response{false, "crashed"};
  --mux.dialing;
  mux.dialed->notify_all();
  if (!failed) mux.conns.push_back(conn);
  co_return failed;
}

sim::Task<> ServiceClient::fill_pools(net::OwnerId owner) {
  const std::uint32_t life = life_;
  const sim::Time deadline = cfg_.timeout > 0 ? sim_.now() + cfg_.timeout : sim::kTimeMax;
  for (std::uint32_t t = 0; t < targets_.size(); ++t) {
    Multiplexed& mux = mux_[t];
    while (mux.conns.size() + mux.dialing < cfg_.conns_per_host) {
      std::optional<Response> failed = co_await grow_pool(t, owner, deadline);
      if (life != life_) co_return;
      if (failed) break;  // this host's pool stays short until a call redials
    }
  }
}

sim::Task<Response> ServiceClient::call_multiplexed(std::uint32_t t, Call call, net::OwnerId owner,
                                                    sim::Time deadline) {
  Target& target = targets_[t];
  Multiplexed& mux = mux_[t];
  const std::uint32_t life = life_;
  // The pool fills itself up to NumConns; a call that finds it short dials one (gocql dials
  // them all at session start, which the first calls stand for here).
  while (mux.conns.empty() || mux.conns.size() + mux.dialing < cfg_.conns_per_host) {
    if (mux.conns.size() + mux.dialing >= cfg_.conns_per_host) {
      // Every connection is still dialing: wait until a dial ends, or the call's deadline.
      sim::Condition& dialed = *mux.dialed;
      bool woke = true;
      if (deadline == sim::kTimeMax) {
        co_await dialed.wait();
      } else {
        woke = deadline > sim_.now() && co_await dialed.wait_for(deadline - sim_.now());
      }
      if (life != life_) co_return Response{false, "crashed"};
      if (!woke) {
        ++stats_.timeouts;
        co_return Response{false, "timeout"};
      }
      continue;
    }
    if (std::optional<Response> failed = co_await grow_pool(t, owner, deadline)) {
      co_return *failed;
    }
    break;
  }
  if (!target.host->up()) {
    // The peer is gone: the driver's connections read EOF and are closed; it redials later.
    for (const auto& c : mux.conns) close(c, net::CloseMode::kPassive);
    mux.conns.clear();
    ++stats_.refused;
    co_return Response{false, "refused"};
  }
  ++mux.next;  // the stream's connection (round robin; which one never changes the exchange)
  co_return co_await stream(target, std::move(call), deadline);
}

}  // namespace skysim::scenarios
