#include "models/memcached/server.hpp"

#include "models/net/sysctl.hpp"

#include <stdexcept>

namespace skysim::memcached {

void ServerConfig::validate() const {
  if (capacity_items == 0) {
    throw std::invalid_argument("memcached: capacity_items must be at least 1");
  }
  if (service_time < 0) {
    throw std::invalid_argument("memcached: service_time must not be negative");
  }
  if (worker_threads < 1) {
    throw std::invalid_argument("memcached: worker_threads must be at least 1");
  }
  if (max_connections < 1) {
    throw std::invalid_argument("memcached: max_connections must be at least 1");
  }
  if (listen_backlog < 0 || somaxconn < 0) {
    throw std::invalid_argument("memcached: listen_backlog and somaxconn must not be negative");
  }
}

Server::Server(sim::Simulation& sim, net::Endpoint listen, ServerConfig config, std::string name)
    : sim_(sim),
      listen_(listen),
      config_(config),
      name_(std::move(name)),
      store_((config.validate(), config.capacity_items)) {
  request_kind_ = sim_.intern_kind("memcached.request");
  sim::ActorId id = sim_.new_actor_id();
  for (int i = 0; i < config_.worker_threads; ++i) {
    auto w = std::make_unique<Worker>();
    w->server = this;
    w->kind = request_kind_;
    w->actor_id = id;
    idle_workers_.push_back(w.get());
    workers_.push_back(std::move(w));
  }
}

Server::~Server() = default;

bool Server::accept() {
  if (stats_.curr_connections >= static_cast<std::uint64_t>(config_.max_connections)) {
    ++stats_.rejected_connections;
    return false;
  }
  ++stats_.curr_connections;
  ++stats_.total_connections;
  return true;
}

void Server::disconnect(std::uint32_t incarnation) {
  if (incarnation != incarnation_) {
    return;
  }
  if (stats_.curr_connections == 0) {
    throw std::logic_error("memcached " + name_ + ": disconnect without a connection");
  }
  --stats_.curr_connections;
}

void Server::submit(std::shared_ptr<PendingOp> op) {
  if (!stalled_ && !idle_workers_.empty()) {
    Worker* w = idle_workers_.back();
    idle_workers_.pop_back();
    start(*w, std::move(op), goruntime::HostCpu::Arrival::kWoken);
    return;
  }
  queue_.push_back(std::move(op));
  if (queue_.size() > stats_.queued_max) {
    stats_.queued_max = queue_.size();
  }
}

void Server::start(Worker& w, std::shared_ptr<PendingOp> op,
                   goruntime::HostCpu::Arrival arrival) {
  w.op = std::move(op);
  const sim::Duration work = config_.service_time + extra_service_;
  if (cores_ == nullptr) {
    sim_.schedule_in(work, w);
    return;
  }
  sim_.spawn(on_core(w, work, arrival), request_kind_);
}

// The worker thread serving one request on the machine's cores. Its work goes on if the
// process dies meanwhile (finish() answers with a reset then), as the callback path's does.
sim::Process Server::on_core(Worker& w, sim::Duration work, goruntime::HostCpu::Arrival arrival) {
  auto turn = cores_->run(work, arrival, this);
  co_await turn;
  finish(w);
}

void Server::finish(Worker& w) {
  std::shared_ptr<PendingOp> op = std::move(w.op);
  if (down_) {
    op->result.status = McStatus::kConnClosed;  // the reply never comes: the socket is reset
    op->result.server = listen_;
  } else {
    execute(*op);
  }
  op->done = true;
  op->reply_at = sim_.now() + op->reply_delay;
  if (op->waiter.proc != nullptr) {
    sim_.wake_at(op->waiter, op->reply_at);
  }
  idle_workers_.push_back(&w);
  pump(&w);
}

void Server::execute(PendingOp& op) {
  op.result.op = op.op;
  op.result.server = listen_;
  if (op.op == McOp::kGet) {
    ++stats_.gets;
    if (auto item = store_.get(op.key)) {
      ++stats_.get_hits;
      op.result.status = McStatus::kOk;
      op.result.item = *item;
    } else {
      ++stats_.get_misses;
      op.result.status = McStatus::kCacheMiss;
    }
  } else {
    ++stats_.sets;
    const std::uint64_t before = store_.bytes();
    store_.set(op.key, op.item);
    op.result.status = McStatus::kOk;
    if (memory_watch_ && store_.bytes() > before) memory_watch_();
  }
  stats_.evictions = store_.evictions();
  if (hot_key_probe) {
    op.result.hot_key = hot_key_probe(op.key);
  }
}

void Server::pump(const Worker* continuing) {
  using Arrival = goruntime::HostCpu::Arrival;
  while (!stalled_ && !idle_workers_.empty() && !queue_.empty()) {
    Worker* w = idle_workers_.back();
    idle_workers_.pop_back();
    std::shared_ptr<PendingOp> op = std::move(queue_.front());
    queue_.pop_front();
    start(*w, std::move(op), w == continuing ? Arrival::kContinues : Arrival::kWoken);
  }
}

void Server::set_down(bool down) {
  down_ = down;
  if (down) {
    // The process is gone: connections and queued work die with it; the items do too.
    stats_.curr_connections = 0;
    ++incarnation_;
    for (std::shared_ptr<PendingOp>& op : queue_) {  // queued requests see the reset at once
      op->result.status = McStatus::kConnClosed;
      op->result.server = listen_;
      op->done = true;
      op->reply_at = sim_.now() + op->reply_delay;
      if (op->waiter.proc != nullptr) {
        sim_.wake_at(op->waiter, op->reply_at);
      }
    }
    queue_.clear();
    store_ = LruItemStore(config_.capacity_items);
  }
}

void Server::set_stalled(bool stalled) {
  stalled_ = stalled;
  if (!stalled) {
    unaccepted_ = 0;  // the accept loop runs again and empties the queue
    pump();
  }
}

bool Server::admit_syn() {
  if (syn_loss_ > 0 && syn_rng_->bernoulli(syn_loss_)) {
    ++stats_.syns_lost;  // lost on the way: neither queued nor counted as an overflow
    return false;
  }
  if (!stalled_) {
    return true;  // accepted as it arrives
  }
  if (unaccepted_ >= net::accept_queue_capacity(config_.listen_backlog, config_.somaxconn)) {
    ++stats_.listen_overflows;
    return false;
  }
  ++unaccepted_;
  return true;
}

}  // namespace skysim::memcached
