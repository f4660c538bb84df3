#include "scenarios/service_client.hpp"

#include "sim/completion.hpp"
#include "sim/on_unwind.hpp"

namespace skysim::scenarios {

ServiceClient::ServiceClient(sim::Simulation& sim, net::NetNamespace& ns, std::string caller,
                             std::vector<Target> targets, ServiceClientConfig cfg, sim::Rng& pick)
    : sim_(sim),
      ns_(ns),
      caller_(std::move(caller)),
      targets_(std::move(targets)),
      cfg_(cfg),
      pick_(pick) {
  idle_.reserve(targets_.size());
  for (std::size_t i = 0; i < targets_.size(); ++i) idle_.emplace_back(cfg_.max_idle);
}

std::size_t ServiceClient::idle_conns() const {
  std::size_t n = 0;
  for (const auto& p : idle_) n += p.size();
  return n;
}

void ServiceClient::crash() {
  for (auto& p : idle_) p.drain();
  ++life_;
  open_ = 0;
}

void ServiceClient::close(const memcached::Conn& c, net::CloseMode mode) {
  if (c.client_life != life_) return;  // closed by the kernel when the process died
  if (mode == net::CloseMode::kActive && cfg_.linger_zero) mode = net::CloseMode::kAbort;
  ns_.close(c.socket, mode);
  --open_;
}

sim::Task<Response> ServiceClient::call(std::string endpoint, std::int64_t size_bytes,
                                        net::OwnerId owner) {
  ++stats_.calls;
  if (targets_.empty()) co_return Response{false, "no_targets"};
  const auto t = static_cast<std::uint32_t>(
      targets_.size() == 1 ? 0
                           : pick_.uniform_int(0, static_cast<std::int64_t>(targets_.size()) - 1));
  Target& target = targets_[t];
  const sim::Time deadline = cfg_.timeout > 0 ? sim_.now() + cfg_.timeout : sim::kTimeMax;

  memcached::Conn conn;
  if (std::optional<memcached::Conn> idle = idle_[t].pop()) {
    ++stats_.idle_reused;
    conn = *idle;
  } else {
    ++stats_.dials;
    net::DialOutcome d = ns_.connect(target.address, owner);
    if (!d.ok()) {
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
  }
  if (!target.host->up()) {  // an idle connection to a host that died reads EOF
    close(conn, net::CloseMode::kPassive);
    ++stats_.refused;
    co_return Response{false, "refused"};
  }

  // The reply travels back half a round trip after the target completes the request; the
  // caller may have stopped waiting by then (the Completion keeps the late reply harmless).
  auto reply = std::make_shared<sim::Completion<Response>>();
  Request r;
  r.id = ++next_id_;
  r.client = caller_;
  r.endpoint = std::move(endpoint);
  r.size_bytes = size_bytes;
  r.deadline = deadline;
  const sim::Duration back = cfg_.rtt / 2;
  r.done = [reply, back, &sim = sim_](const Response& resp) {
    if (!reply->completed()) reply->complete_at(sim, sim.now() + back, resp);
  };
  std::optional<Response> got;
  {
    sim::OnUnwind close_it(sim_, [this, &conn] { close(conn, net::CloseMode::kActive); });
    if (deadline - sim_.now() > cfg_.rtt / 2) {
      co_await sim::sleep(cfg_.rtt / 2);  // the request on the wire
      r.issued_at = sim_.now();
      target.host->handle(std::move(r));
      got = co_await reply->wait_until(deadline);
    } else {
      co_await sim::sleep(deadline - sim_.now());
    }
    close_it.dismiss();
  }
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

}  // namespace skysim::scenarios
