#include "models/memcached/client.hpp"

#include <boost/crc.hpp>
#include <stdexcept>

#include "sim/on_unwind.hpp"
#include "sim/trace_span.hpp"

namespace skysim::memcached {
namespace {

// Parks the calling process until the server's reply arrives or the deadline passes,
// whichever comes first. The deadline is kept by the client's DeadlineList, so a reply that
// comes first leaves nothing in the event queue; a deadline that comes first leaves the
// server's later wake-up stale (dropped by the kernel).
struct ReplyAwaiter {
  std::shared_ptr<PendingOp> op;
  sim::Time deadline;
  sim::DeadlineList& list;
  sim::DeadlineList::Entry entry;
  sim::ProcState* p = nullptr;

  ReplyAwaiter(std::shared_ptr<PendingOp> o, sim::Time d, sim::DeadlineList& l)
      : op(std::move(o)), deadline(d), list(l) {}
  ReplyAwaiter(const ReplyAwaiter&) = delete;
  ~ReplyAwaiter() {
    if (op) {
      op->waiter = {};  // a destroyed frame must never be woken by a late reply
    }
  }
  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!sim::park_killable(h, p)) {  // the destructor forgets the waiter, as await_resume
      return false;
    }
    op->waiter = sim::WakeToken{p, p->gen};
    list.arm(entry, deadline, op->waiter);
    return true;
  }
  void await_resume() {
    sim::DeadlineList::disarm(entry);
    op->waiter = {};
    sim::throw_if_cancelled(p);
  }
};

}  // namespace

void ClientConfig::validate() const {
  if (max_idle_conns < 1) {
    throw std::invalid_argument(
        "memcache client: max_idle_conns must be >= 1 (gomemcache's default is 2)");
  }
  if (timeout <= 0) {
    throw std::invalid_argument(
        "memcache client: timeout must be positive (gomemcache's default is 500ms)");
  }
  if (loopback_rtt < 0) {
    throw std::invalid_argument("memcache client: loopback_rtt must not be negative");
  }
  if (port_scan_ns < 0) {
    throw std::invalid_argument("memcache client: port_scan_ns must not be negative");
  }
  if (conn_buffer_bytes < 0) {
    throw std::invalid_argument("memcache client: conn_buffer_bytes must not be negative");
  }
}

Client::Client(sim::Simulation& sim, net::NetNamespace& ns, net::Dialer& dialer,
               std::vector<Server*> servers, ClientConfig config, net::OwnerId owner)
    : sim_(sim),
      ns_(ns),
      dialer_(&dialer),
      servers_(std::move(servers)),
      config_(config),
      owner_(owner),
      deadlines_(sim, "memcached.deadline") {
  config_.validate();
  for (Server* s : servers_) {
    if (s == nullptr) {
      throw std::invalid_argument("memcache client: null server in the server list");
    }
    pools_.emplace_back(static_cast<std::size_t>(config_.max_idle_conns));
  }
  accepted_.resize(servers_.size());
}

std::size_t Client::pick_server(std::string_view key) const {
  if (servers_.size() <= 1) {
    return 0;
  }
  boost::crc_32_type crc;  // IEEE, as Go's crc32.ChecksumIEEE
  crc.process_bytes(key.data(), key.size());
  return crc.checksum() % servers_.size();
}

std::size_t Client::idle_conns(std::size_t server_index) const {
  return pools_.at(server_index).size();
}

sim::Task<McResult> Client::get(std::string key) {
  return run(McOp::kGet, std::move(key), McItem{});
}

sim::Task<McResult> Client::set(std::string key, McItem item) {
  return run(McOp::kSet, std::move(key), item);
}

McResult Client::failure(McStatus s, McOp op, std::uint32_t server) const {
  McResult r;
  r.status = s;
  r.op = op;
  if (!servers_.empty()) {
    r.server = servers_[server]->address();
  }
  return r;
}

void Client::check_usable(const Conn* c) const {
  if (crashed_ || (c != nullptr && c->client_life != life_)) {
    throw std::logic_error(
        "memcache client used after its process crashed (cancel the process's goroutines)");
  }
}

sim::Task<McResult> Client::run(McOp op, std::string key, McItem item) {
  check_usable(nullptr);
  ++stats_.ops;
  if (!legal_key(key)) {
    co_return failure(McStatus::kMalformedKey, op, 0);  // checked before any connection
  }
  if (servers_.empty()) {
    co_return failure(McStatus::kNoServers, op, 0);
  }
  sim::TraceSpan span = co_await sim::trace_span(
      sim_, op == McOp::kGet ? "memcache.Get" : "memcache.Set", "memcached");
  auto server = static_cast<std::uint32_t>(pick_server(key));
  ConnAttempt got;
  if (!take_idle(server, got)) got = co_await get_conn(server);
  if (!got.ok) {
    got.error.op = op;
    if (span) span.end({{"key", key}, {"error", got.error.error_text()}});
    co_return got.error;
  }
  McResult r;
  {
    // The goroutine was killed mid-request; its descriptor is closed for it.
    sim::OnUnwind close_it(sim_, [this, &got] {
      if (got.conn.client_life == life_) close_conn(got.conn, net::CloseMode::kActive);
    });
    r = co_await round_trip(got.conn, op, key, item);
    close_it.dismiss();
  }
  check_usable(&got.conn);
  if (r.hot_key) {
    ++stats_.hot_key_replies;
  }
  cond_release(got.conn, r);
  if (span) {
    span.end({{"key", key},
              {"error", r.ok() ? std::string() : r.error_text()},
              {"bytes", static_cast<std::int64_t>(op == McOp::kGet ? r.item.value_bytes
                                                                   : item.value_bytes)}});
  }
  co_return r;
}

bool Client::take_idle(std::uint32_t server, ConnAttempt& out) {
  std::optional<Conn> idle = pools_[server].pop();
  if (!idle) return false;
  ++stats_.idle_reused;
  out.ok = true;
  out.conn = *idle;
  return true;
}

sim::Task<Client::ConnAttempt> Client::get_conn(std::uint32_t server) {
  ConnAttempt out;
  if (take_idle(server, out)) co_return out;
  Server& s = *servers_[server];
  ++stats_.dials;
  // The dial as Go's net.Dialer sees it: port search (bind), connect, the SYN round trip.
  sim::TraceSpan span = co_await sim::trace_span(sim_, "net.Dial", "net");
  net::DialOutcome d = dialer_->dial(ns_, s.address(), owner_);
  // `error` makes the text only when traced: an untraced run never formats it.
  auto trace_dial = [&](auto error) {
    if (span) {
      span.end({{"server", s.address().str()},
                {"ports_scanned", static_cast<std::int64_t>(d.ports_scanned)},
                {"error", error()}});
    }
  };
  // The search ran inside bind(2)/connect(2): the goroutine is in the kernel that long. The
  // port was taken (or the error decided) when the search began: the kernel holds the
  // bucket lock from finding a port to reserving it, so the outcome cannot change.
  const sim::Duration kernel = config_.port_scan_ns * static_cast<sim::Duration>(d.ports_scanned);
  const bool charge_kernel = syscall_ && kernel >= syscall_shortest_;
  if (!d.ok()) {
    if (charge_kernel) {
      co_await syscall_(kernel);
    }
    ++stats_.dial_errors;
    out.error = failure(McStatus::kDialError, McOp::kGet, server);
    out.error.dial_error = d.error;  // unchanged, as gomemcache returns it
    trace_dial([&] { return d.error.text(); });
    co_return out;
  }
  Conn c;
  c.socket = d.socket;
  c.local = d.local;
  c.server = server;
  c.client_life = life_;
  ++open_conns_;
  {
    sim::OnUnwind abort_it(sim_, [this, &c] {
      if (c.client_life == life_ && ns_.is_open(c.socket)) {
        ns_.close(c.socket, net::CloseMode::kAbort);
        --open_conns_;
      }
    });
    if (charge_kernel) {
      co_await syscall_(kernel);
      check_usable(&c);
    }
    if (!s.admit_syn()) {
      // The accept queue is full: the SYN is dropped, its retransmission comes only after the
      // initial RTO of 1 s (TCP_TIMEOUT_INIT), later than the 500 ms Timeout, so DialContext
      // gives up first and closes a socket still in SYN_SENT: no TIME_WAIT.
      co_await sim::sleep(config_.timeout);
      abort_it.dismiss();
      check_usable(&c);
      ns_.close(c.socket, net::CloseMode::kAbort);
      --open_conns_;
      ++stats_.connect_timeouts;
      out.error = failure(McStatus::kConnectTimeout, McOp::kGet, server);
      trace_dial([&] { return out.error.error_text(); });
      co_return out;
    }
    co_await sim::sleep(config_.loopback_rtt);  // SYN, SYN-ACK; the ACK rides the request
    abort_it.dismiss();
  }
  check_usable(&c);
  if (s.down()) {
    ns_.close(c.socket, net::CloseMode::kAbort);  // RST to the SYN
    --open_conns_;
    ++stats_.dial_errors;
    out.error = failure(McStatus::kDialError, McOp::kGet, server);
    out.error.dial_error =
        net::DialError{net::Errno::kECONNREFUSED, net::DialStep::kConnect,
                       dialer_->gives_local_address(), net::Endpoint{c.local.ip, 0}, s.address()};
    trace_dial([&] { return out.error.dial_error.text(); });
    co_return out;
  }
  ns_.established(c.socket);
  c.rejected = !s.accept();
  c.server_life = s.incarnation();
  if (!c.rejected) {
    ++accepted_[server][c.server_life];
  }
  out.ok = true;
  out.conn = c;
  if (memory_ && config_.conn_buffer_bytes > 0) memory_(config_.conn_buffer_bytes);
  trace_dial([] { return std::string(); });
  co_return out;
}

sim::Task<McResult> Client::round_trip(const Conn& c, McOp op, const std::string& key,
                                       McItem item) {
  Server& s = *servers_[c.server];
  // gomemcache refreshes the deadline when it takes a connection and before each read.
  const sim::Time deadline = sim_.now() + config_.timeout;
  McResult r = failure(McStatus::kOk, op, c.server);
  r.local = c.local;
  // A connection to an earlier server process (it restarted since) reads EOF like a down one.
  if (c.rejected || s.down() || c.server_life != s.incarnation()) {
    co_await sim::sleep(config_.loopback_rtt);
    r.status = c.rejected ? McStatus::kServerError : McStatus::kConnClosed;
    co_return r;
  }
  std::shared_ptr<PendingOp> pending = new_op();
  pending->op = op;
  pending->key = key;
  pending->item = item;
  pending->reply_delay = config_.loopback_rtt / 2;
  co_await sim::sleep(config_.loopback_rtt / 2);  // the request on the wire
  s.submit(pending);
  co_await ReplyAwaiter(pending, deadline, deadlines_);
  if (pending->done && pending->reply_at <= sim_.now()) {
    r.status = pending->result.status;
    r.item = pending->result.item;
    r.hot_key = pending->result.hot_key;
  } else {
    r.status = McStatus::kIoTimeout;
  }
  recycle(std::move(pending));
  co_return r;
}

std::shared_ptr<PendingOp> Client::new_op() {
  if (spare_ops_.empty()) return std::make_shared<PendingOp>();
  std::shared_ptr<PendingOp> op = std::move(spare_ops_.back());
  spare_ops_.pop_back();
  return op;
}

void Client::recycle(std::shared_ptr<PendingOp> op) {
  // Bounded: the most requests a client has in flight at once come back at most this often.
  constexpr std::size_t kMaxSpare = 256;
  if (op.use_count() != 1 || spare_ops_.size() >= kMaxSpare) return;
  *op = PendingOp{};
  spare_ops_.push_back(std::move(op));
}

void Client::cond_release(const Conn& c, const McResult& r) {
  if (r.ok() || r.resumable()) {
    if (pools_[c.server].push(c)) {
      return;
    }
    ++stats_.closed_pool_full;
    close_conn(c, net::CloseMode::kActive);
    return;
  }
  ++stats_.closed_on_error;
  if (r.status == McStatus::kIoTimeout) {
    ++stats_.io_timeouts;
  }
  // After a server-side close (rejection, EOF) the peer sent FIN first: no TIME_WAIT here.
  bool peer_closed = r.status == McStatus::kServerError || r.status == McStatus::kConnClosed;
  close_conn(c, peer_closed ? net::CloseMode::kPassive : net::CloseMode::kActive);
}

void Client::close_conn(const Conn& c, net::CloseMode mode) {
  if (mode == net::CloseMode::kActive && config_.linger_zero) {
    mode = net::CloseMode::kAbort;
  }
  ns_.close(c.socket, mode);
  --open_conns_;
  if (memory_ && config_.conn_buffer_bytes > 0) memory_(-config_.conn_buffer_bytes);
  if (!c.rejected) {
    servers_[c.server]->disconnect(c.server_life);
    auto& by_life = accepted_[c.server];
    if (--by_life[c.server_life] == 0) {
      by_life.erase(c.server_life);
    }
  }
}

void Client::close_idle() {
  for (IdlePool& pool : pools_) {
    for (const Conn& c : pool.drain()) {
      close_conn(c, net::CloseMode::kActive);
    }
  }
}

void Client::crash() {
  if (crashed_) {
    return;
  }
  // Tell each server its connections (idle and in use) are gone, then let the kernel close
  // the descriptors.
  for (std::size_t i = 0; i < servers_.size(); ++i) {
    pools_[i].drain();
    for (const auto& [server_life, n] : accepted_[i]) {
      for (std::uint64_t k = 0; k < n; ++k) {
        servers_[i]->disconnect(server_life);
      }
    }
    accepted_[i].clear();
  }
  ns_.close_all(owner_, config_.linger_zero ? net::CloseMode::kAbort : net::CloseMode::kActive);
  open_conns_ = 0;
  crashed_ = true;
  ++life_;
}

}  // namespace skysim::memcached
