#include "scenarios/queue_server.hpp"

#include <cmath>
#include <deque>
#include <optional>

namespace skysim::scenarios {
namespace {

class QueueServer;

// A worker is a Handler: its one pending event is the end of the request it serves.
class Worker final : public sim::Handler {
 public:
  explicit Worker(QueueServer& server) : server_(server) {}
  void on_event(sim::Simulation& sim) override;

  QueueServer& server_;
  std::optional<Request> current;
  bool scheduled = false;  // an end-of-service event is pending (even if the request was dropped)
  bool retired = false;    // shrunk away by `workers` going down
};

class QueueServer final : public Instance {
 public:
  QueueServer(World& w, const HostContext& ctx)
      : Instance(ctx),
        sim_(w.sim()),
        rng_(w.sim().stream("queue-server/" + ctx.path())),
        service_time_(ctx.params.distribution_ptr("service_time")),
        capacity_(ctx.params.count("queue_capacity")),
        kind_(w.sim().intern_kind("queue-server.done")) {
    sim::Labels host{{"host", path()}};
    auto& m = w.metrics();
    arrivals_ = &m.counter("queue.arrivals", host);
    served_ = &m.counter("queue.served", host);
    rejected_ = &m.counter("queue.rejected", host);
    dropped_ = &m.counter("queue.dropped", host);
    wait_ = &m.histogram("queue.wait_ns", host);
    m.gauge_fn("queue.length", host, [this] { return static_cast<double>(queue_.size()); });
    m.gauge_fn("queue.busy_workers", host, [this] { return static_cast<double>(busy_); });
    resize(scaled_workers(ctx.params.count("workers")));
  }

  void handle(Request r) override {
    arrivals_->add();
    if (!up()) {
      dropped_->add();
      r.complete({false, "host-down"});
      return;
    }
    if (Worker* w = idle_worker()) {
      begin(*w, std::move(r));
      return;
    }
    if (capacity_ > 0 && static_cast<std::int64_t>(queue_.size()) >= capacity_) {
      rejected_->add();
      r.complete({false, "rejected"});
      return;
    }
    queue_.push_back(Queued{std::move(r), sim_.now()});
  }

  void set(std::string_view name, const sim::ParamValue& v) override {
    if (name == "workers") {
      resize(scaled_workers(v.integer));
    } else if (name == "queue_capacity") {
      capacity_ = v.integer;  // a shrink does not evict: only new arrivals see the new bound
      shrunk_ = capacity_ > 0 && static_cast<std::int64_t>(queue_.size()) > capacity_;
    } else if (name == "service_time") {
      service_time_ = v.distribution;
    } else {
      Instance::set(name, v);
    }
  }

  void crash() override {
    Instance::crash();
    for (auto& w : workers_) {
      if (w->current) {
        Request r = std::move(*w->current);
        w->current.reset();
        --busy_;
#ifdef SKYSIM_PLANTED_BUGS
        // Planted for `skysim fuzz` to find (tests/fuzz/planted_bug.sh): a crash in the middle
        // of a batch request (>= 64 KiB) forgets it, neither counted nor completed.
        if (r.size_bytes >= 64 * 1024) {
          continue;
        }
#endif
        dropped_->add();
        r.complete({false, "crashed"});
      }
    }
    while (!queue_.empty()) {
      Request r = std::move(queue_.front().request);
      queue_.pop_front();
      dropped_->add();
      r.complete({false, "crashed"});
    }
  }

  void restart() override { Instance::restart(); }

  std::vector<Invariant> invariants() override {
    return {
        {"queue.conservation",
         [this]() -> std::string {
           std::int64_t accounted = served_->value() + rejected_->value() + dropped_->value() +
                                    static_cast<std::int64_t>(queue_.size()) + busy_;
           if (accounted == arrivals_->value()) return "";
           return path() + ": arrivals " + std::to_string(arrivals_->value()) +
                  " != served+rejected+dropped+queued+busy " + std::to_string(accounted);
         }},
        {"queue.work-conserving",
         [this]() -> std::string {
           if (!queue_.empty() && up() && idle_count() > 0) {
             return path() + ": " + std::to_string(queue_.size()) + " queued while " +
                    std::to_string(idle_count()) + " workers idle";
           }
           return "";
         }},
        {"queue.capacity",
         [this]() -> std::string {
           if (capacity_ > 0 && static_cast<std::int64_t>(queue_.size()) > capacity_ && !shrunk_) {
             return path() + ": queue " + std::to_string(queue_.size()) + " above capacity";
           }
           return "";
         }},
    };
  }

  // Worker callback: the request in service is done.
  void finished(Worker& w) {
    w.scheduled = false;
    if (w.current) {
      Request r = std::move(*w.current);
      w.current.reset();
      --busy_;
      served_->add();
      r.complete({true, ""});
    }
    if (active_ > target_ && !w.retired) {
      w.retired = true;
      --active_;
      return;
    }
    if (!w.retired && up() && !queue_.empty()) {
      Queued q = std::move(queue_.front());
      queue_.pop_front();
      wait_->record(sim_.now() - q.enqueued_at);
      begin(w, std::move(q.request), true);
    }
  }

 private:
  struct Queued {
    Request request;
    sim::Time enqueued_at;
  };

  std::int64_t scaled_workers(std::int64_t n) const {
    // The scale knob shrinks pools with traffic so utilisation (and so waiting) holds.
    return std::max<std::int64_t>(1, std::llround(static_cast<double>(n) * context().scale));
  }

  std::int64_t idle_count() const {
    std::int64_t n = 0;
    for (const auto& w : workers_) n += (!w->retired && !w->scheduled) ? 1 : 0;
    return n;
  }

  Worker* idle_worker() {
    for (auto& w : workers_) {
      if (!w->retired && !w->scheduled) return w.get();
    }
    return nullptr;
  }

  void begin(Worker& w, Request r, bool waited = false) {
    if (!waited) wait_->record(0);
    w.current = std::move(r);
    w.scheduled = true;
    ++busy_;
    sim::Duration d = service_time_->sample_duration(rng_);
    sim_.schedule_in(d, w);
  }

  void resize(std::int64_t n) {
    target_ = n;
    // Grow: revive retired workers, then add new ones; each picks up queued work.
    for (auto& w : workers_) {
      if (active_ >= target_) break;
      if (w->retired && !w->scheduled) {
        w->retired = false;
        ++active_;
      }
    }
    while (active_ < target_) {
      workers_.push_back(std::make_unique<Worker>(*this));
      workers_.back()->kind = kind_;
      workers_.back()->actor_id = sim_.new_actor_id();
      ++active_;
    }
    // Shrink: idle workers retire now, busy ones when they finish (finished()).
    for (auto& w : workers_) {
      if (active_ <= target_) break;
      if (!w->retired && !w->scheduled) {
        w->retired = true;
        --active_;
      }
    }
    while (up() && !queue_.empty()) {
      Worker* w = idle_worker();
      if (!w) break;
      Queued q = std::move(queue_.front());
      queue_.pop_front();
      wait_->record(sim_.now() - q.enqueued_at);
      begin(*w, std::move(q.request), true);
    }
  }

  sim::Simulation& sim_;
  sim::Rng& rng_;
  sim::DistributionPtr service_time_;
  std::int64_t capacity_;
  sim::Kind kind_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::deque<Queued> queue_;
  std::int64_t target_ = 0;
  std::int64_t active_ = 0;
  std::int64_t busy_ = 0;
  bool shrunk_ = false;
  sim::Counter* arrivals_;
  sim::Counter* served_;
  sim::Counter* rejected_;
  sim::Counter* dropped_;
  sim::Histogram* wait_;
};

void Worker::on_event(sim::Simulation&) { server_.finished(*this); }

}  // namespace

ServiceKind queue_server_kind() {
  using sim::ParamType;
  ServiceKind k;
  k.name = "queue-server";
  k.doc =
      "c workers serving one FIFO queue (M/M/c when arrivals are Poisson and service "
      "exponential); the demo kind";
  k.params = {
      {"workers",
       ParamType::Count,
       "",
       "8",
       1,
       1e6,
       {},
       "concurrent workers c (assumption: a small handler pool); scaled by `scale`",
       true},
      {"service_time",
       ParamType::Distribution,
       "duration",
       "{exponential: {mean: 10ms}}",
       1,
       {},
       {},
       "time a request holds a worker (assumption: 10 ms mean, exponential)",
       true},
      {"queue_capacity",
       ParamType::Count,
       "",
       "0",
       0,
       1e9,
       {},
       "queued requests beyond which arrivals are rejected; 0 = unbounded",
       true},
  };
  k.endpoints = {"serve"};
  k.build = [](World& w, const HostContext& ctx) -> std::unique_ptr<Instance> {
    return std::make_unique<QueueServer>(w, ctx);
  };
  return k;
}

}  // namespace skysim::scenarios
