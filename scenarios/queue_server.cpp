#include "scenarios/queue_server.hpp"

#include <cmath>
#include <deque>
#include <optional>
#include <stdexcept>
#ifdef SKYSIM_PLANTED_BUGS
#include <string_view>
#include <unordered_set>
#endif

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
  sim::Time due = 0;       // end of service; moves later by every pause the service spans
  bool scheduled = false;  // an end-of-service event is pending (even if the request was dropped)
  bool parked = false;     // its end-of-service event fired during a pause: re-armed on resume
  bool retired = false;    // shrunk away by `workers` going down
};

// The network link into the host (fault hooks `link_delay`, `link_clogged`, `link_partitioned`,
// `link_loss`): an in-order stream like a TCP connection, so a request never overtakes one sent
// before it. Its one pending event is the delivery of the request at the head (or, while the
// head's segment is being retransmitted, its next transmission).
//
// A segment lost (link_loss) or sent into a partition (link_partitioned) is retransmitted as
// Linux does: after the retransmission timeout, which doubles each time (tcp_retransmit_timer:
// icsk_rto <<= 1, capped at TCP_RTO_MAX = 120 s). assumption: on a LAN srtt + 4 rttvar is below
// TCP_RTO_MIN, so the first RTO is TCP_RTO_MIN = 200 ms (include/net/tcp.h). After
// tcp_retries2 = 15 retransmissions the connection is reset and the request fails with
// ETIMEDOUT (net.ipv4.tcp_retries2 default, Documentation/networking/ip-sysctl.rst). A later
// segment that got through waits in the receiver's out-of-order queue for the lost one, so
// head-of-line blocking is the in-order delivery below.
class Link final : public sim::Handler {
 public:
  explicit Link(QueueServer& server) : server_(server) {}
  void on_event(sim::Simulation& sim) override;

  static constexpr sim::Duration kRtoMin = 200 * sim::kMillisecond;  // TCP_RTO_MIN
  static constexpr sim::Duration kRtoMax = 120 * sim::kSecond;       // TCP_RTO_MAX
  static constexpr int kRetries2 = 15;                               // tcp_retries2

  struct InTransit {
    Request request;
    sim::Time deliver_at;  // arrival at the host, once `resolved`
    // Retransmission state (only on a link that has lost or partitioned a segment):
    bool resolved = true;   // false: the transmission at `attempt` is not yet decided
    sim::Time attempt = 0;  // when the pending transmission leaves the sender
    sim::Duration rto = kRtoMin;
    int retransmits = 0;
    bool reset = false;  // tcp_retries2 ran out: the connection was reset, nothing arrives
  };
  // The link's fault state from `from` on: transmissions are decided against the state at the
  // instant they were sent, even when looked at later.
  struct State {
    sim::Time from;
    bool partitioned;
    double loss;
  };
  QueueServer& server_;
  std::deque<InTransit> in_transit;
  std::vector<State> history;  // empty until a partition or loss is first set
  bool scheduled = false;
};

class QueueServer final : public Instance {
 public:
  QueueServer(World& w, const HostContext& ctx)
      : Instance(ctx),
        sim_(w.sim()),
        rng_(w.sim().stream("queue-server/" + ctx.path())),
        service_time_(ctx.params.distribution_ptr("service_time")),
        capacity_(ctx.params.count("queue_capacity")),
#ifdef SKYSIM_PLANTED_BUGS
        broken_check_(ctx.params.flag("planted_broken_check")),
#endif
        kind_(w.sim().intern_kind("queue-server.done")),
        link_(*this),
        metrics_(w.metrics()) {
    sim::Labels host{{"host", path()}};
    auto& m = w.metrics();
    arrivals_ = &m.counter("queue.arrivals", host);
    served_ = &m.counter("queue.served", host);
    rejected_ = &m.counter("queue.rejected", host);
    dropped_ = &m.counter("queue.dropped", host);
    wait_ = &m.histogram("queue.wait_ns", host);
    pauses_ = &m.counter("queue.pauses", host);
    paused_ns_ = &m.counter("queue.paused_ns", host);
    pause_stalled_ = &m.counter("queue.pause_stalled", host);
    link_delayed_ = &m.counter("queue.link_delayed", host);
    link_held_ = &m.counter("queue.link_clog_held", host);
    m.gauge_fn("queue.link_in_transit", host,
               [this] { return static_cast<double>(link_.in_transit.size()); });
    m.gauge_fn("queue.length", host, [this] { return static_cast<double>(queue_.size()); });
    m.gauge_fn("queue.busy_workers", host, [this] { return static_cast<double>(busy_); });
    link_delay_ = ctx.params.duration("link_delay");
    link_clogged_ = ctx.params.flag("link_clogged");
    set_link_state(ctx.params.flag("link_partitioned"), ctx.params.fraction("link_loss"));
    resize(scaled_workers(ctx.params.count("workers")));
    if (ctx.params.flag("paused")) pause();
  }

  void handle(Request r) override {
    arrivals_->add();
    if (link_delay_ > 0 || link_clogged_ || link_lossy() || !link_.in_transit.empty()) {
      send_over_link(std::move(r));
      return;
    }
    accept(std::move(r));
  }

  // A request reaches the host (directly, or at the end of the link).
  void accept(Request r) {
    if (!up()) {
      dropped_->add();
      r.complete({false, "host-down"});
      return;
    }
    if (Worker* w = paused_ ? nullptr : idle_worker()) {
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
    } else if (name == "link_delay") {
      link_delay_ = v.integer;  // requests already on the link keep their delivery time
    } else if (name == "link_clogged") {
      link_clogged_ = v.integer != 0;
      if (!link_clogged_) arm_link();
    } else if (name == "paused") {
      v.integer != 0 ? pause() : resume();
    } else if (name == "link_partitioned") {
      set_link_state(v.integer != 0, link_loss_);
    } else if (name == "link_loss") {
      set_link_state(link_partitioned_, v.number);
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

  // A restart is a fresh process: whatever pause the old one was in ends with it.
  void restart() override {
    Instance::restart();
    resume();
  }

  // Delivers the link's head if it is due and the link flows; re-arms for the next one.
  void link_event() {
    link_.scheduled = false;
    if (link_clogged_) return;  // held until unclogged (arm_link)
    while (!link_.in_transit.empty() && resolve(link_.in_transit.front()) &&
           link_.in_transit.front().deliver_at <= sim_.now()) {
      const bool reset = link_.in_transit.front().reset;
      Request r = std::move(link_.in_transit.front().request);
      link_.in_transit.pop_front();
      if (reset) {
        link_resets_->add();
        dropped_->add();
        r.complete({false, "connection-timed-out"});  // ETIMEDOUT to the client
        continue;
      }
      accept(std::move(r));
    }
    arm_link();
  }
  std::vector<Invariant> invariants() override {
    return {
        {"queue.conservation",
         [this]() -> std::string {
           std::int64_t accounted = served_->value() + rejected_->value() + dropped_->value() +
                                    static_cast<std::int64_t>(queue_.size()) + busy_ +
                                    static_cast<std::int64_t>(link_.in_transit.size());
           if (accounted == arrivals_->value()) return "";
           return path() + ": arrivals " + std::to_string(arrivals_->value()) +
                  " != served+rejected+dropped+queued+busy " + std::to_string(accounted);
         }},
        {"queue.work-conserving",
         [this]() -> std::string {
           if (!queue_.empty() && up() && !paused_ && idle_count() > 0) {
             return path() + ": " + std::to_string(queue_.size()) + " queued while " +
                    std::to_string(idle_count()) + " workers idle";
           }
           return "";
         }},
        {"queue.capacity",
         [this]() -> std::string {
           std::int64_t over = capacity_;
#ifdef SKYSIM_PLANTED_BUGS
           // Planted for tests/fuzz/planted_broken_check.sh: with planted_broken_check on, the
           // check is off by one (a full queue reads as over capacity), so it must be reported
           // mid-run at the first event that fills the queue.
           if (broken_check_) over = capacity_ - 1;
#endif
           if (capacity_ > 0 && static_cast<std::int64_t>(queue_.size()) > over && !shrunk_) {
             return path() + ": queue " + std::to_string(queue_.size()) + " above capacity";
           }
           return "";
         }},
    };
  }

  // Worker callback: the end of service is due, unless a pause stopped the clock meanwhile.
  void service_event(Worker& w) {
    if (paused_) {
      w.parked = true;  // stays `scheduled`: the worker is still busy
      return;
    }
    if (sim_.now() < w.due) {
      sim_.schedule_at(w.due, w);
      return;
    }
    finished(w);
  }

  // The request in service is done.
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
    if (!w.retired && up() && !paused_ && !queue_.empty()) {
      Queued q = std::move(queue_.front());
      queue_.pop_front();
      wait_->record(sim_.now() - q.enqueued_at);
      begin(w, std::move(q.request), true);
    }
  }

  // Its end state into the run's unseed (Simulation::fold): every request still queued or in
  // service (id, size, issue time) and the pool's shape. No event carries a size, so a change
  // in the payload that keeps the event order shows here (and in the metrics).
  void finish(World&) override {
    for (std::int64_t v : {target_, active_, busy_}) sim_.fold(static_cast<std::uint64_t>(v));
    auto fold_request = [this](const Request& r) {
      sim_.fold(r.id);
      sim_.fold(static_cast<std::uint64_t>(r.size_bytes));
      sim_.fold(static_cast<std::uint64_t>(r.issued_at));
    };
    for (const Queued& q : queue_) {
      fold_request(q.request);
      sim_.fold(static_cast<std::uint64_t>(q.enqueued_at));
    }
    for (const auto& w : workers_) {
      if (!w->current) continue;
      fold_request(*w->current);
      sim_.fold(static_cast<std::uint64_t>(w->due));
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
#ifdef SKYSIM_PLANTED_BUGS
    // Planted for the determinism contract (tests/fuzz/planted_nondeterminism.sh): the idle
    // worker is the first found walking an unordered set of pointers bucket by bucket, an order
    // that follows the hash of heap addresses and so changes from one process to the next
    // (ASLR). Fuzz's double-run must notice and name the first event where two runs part.
    // (libstdc++'s plain iteration walks its node list, which mostly keeps reverse insertion
    // order whatever the hash; the bucket walk is the order other hash tables iterate in.)
    struct AddressHash {
      std::size_t operator()(const Worker* w) const {
        const std::string_view address(reinterpret_cast<const char*>(&w), sizeof w);
        return std::hash<std::string_view>{}(address);  // determinism-ok: planted bug only
      }
    };
    std::unordered_set<Worker*, AddressHash> idle;
    for (auto& w : workers_) {
      if (!w->retired && !w->scheduled) idle.insert(w.get());
    }
    for (std::size_t b = 0; b < idle.bucket_count(); ++b) {
      if (idle.begin(b) != idle.end(b)) return *idle.begin(b);
    }
    return nullptr;
#else
    for (auto& w : workers_) {
      if (!w->retired && !w->scheduled) return w.get();
    }
    return nullptr;
#endif
  }

  void begin(Worker& w, Request r, bool waited = false) {
    if (!waited) wait_->record(0);
    w.current = std::move(r);
    w.scheduled = true;
    ++busy_;
    sim::Duration d = service_time_->sample_duration(rng_);
    w.due = sim_.now() + d;
    sim_.schedule_at(w.due, w);
  }

  void send_over_link(Request r) {
    if (link_.actor_id == 0) {
      // Named on first use, not at construction: a new kind or actor id at build time would
      // renumber every later one and move every fingerprint of runs without link faults.
      link_.kind = sim_.intern_kind("queue-server.link");
      link_.actor_id = sim_.new_actor_id();
    }
    if (link_delay_ > 0) link_delayed_->add();
    if (link_clogged_) link_held_->add();
    sim::Time at = sim_.now() + link_delay_;
    if (!link_.in_transit.empty() && link_.in_transit.back().resolved) {
      at = std::max(at, link_.in_transit.back().deliver_at);
    }
    Link::InTransit t{std::move(r), at};
    if (!link_.history.empty()) {
      t.resolved = false;  // decided when the link looks at it (resolve)
      t.attempt = sim_.now();
    }
    link_.in_transit.push_back(std::move(t));
    arm_link();
  }

  bool link_lossy() const { return link_partitioned_ || link_loss_ > 0; }

  // A partition or a loss rate starts or ends. The first one names the link's counters and
  // its loss stream, so runs without these faults keep their metrics, draws and fingerprints.
  void set_link_state(bool partitioned, double loss) {
    if (loss < 0 || loss > 1) {
      throw std::invalid_argument(path() + ": link_loss must be in [0, 1]");
    }
    if (link_.history.empty()) {
      if (!partitioned && loss == 0) return;  // nothing has ever been lost: nothing to record
      sim::Labels host{{"host", path()}};
      retransmits_ = &metrics_.counter("queue.link_retransmits", host);
      link_resets_ = &metrics_.counter("queue.link_resets", host);
      loss_rng_ = &sim_.stream("queue-server/" + path() + "/link-loss");
    }
    link_partitioned_ = partitioned;
    link_loss_ = loss;
    if (!link_.history.empty() && link_.history.back().from == sim_.now()) {
      link_.history.back() = {sim_.now(), partitioned, loss};
    } else {
      link_.history.push_back({sim_.now(), partitioned, loss});
    }
    // A healed link: segments sent during the partition still wait for their retransmission.
    if (!link_lossy() && link_.in_transit.empty()) link_.history.clear();
    if (!link_lossy() && link_.history.size() > 1) {
      // Only the state at or after the oldest pending transmission can still be asked for.
      sim::Time oldest = sim_.now();
      for (const auto& t : link_.in_transit) {
        if (!t.resolved) oldest = std::min(oldest, t.attempt);
      }
      std::size_t keep = 0;
      while (keep + 1 < link_.history.size() && link_.history[keep + 1].from <= oldest) ++keep;
      link_.history.erase(link_.history.begin(),
                          link_.history.begin() + static_cast<std::ptrdiff_t>(keep));
    }
  }

  // The link's state when a segment left at `t`.
  const Link::State& state_at(sim::Time t) const {
    std::size_t i = link_.history.size() - 1;
    while (i > 0 && link_.history[i].from > t) --i;
    return link_.history[i];
  }

  // Decides every transmission of `t` sent up to now (one loss draw each, in the order the
  // link looks at them); true once it has got through (deliver_at known). A reset connection
  // fails the request: it leaves the link at its next turn as a failure.
  bool resolve(Link::InTransit& t) {
    while (!t.resolved && t.attempt <= sim_.now()) {
      const Link::State& st = state_at(t.attempt);
      bool lost = st.partitioned || (st.loss > 0 && loss_rng_->bernoulli(st.loss));
      if (!lost) {
        t.resolved = true;
        t.deliver_at = t.attempt + link_delay_;
        break;
      }
      if (t.retransmits == Link::kRetries2) {
        t.resolved = true;
        t.reset = true;
        t.deliver_at = t.attempt;
        break;
      }
      ++t.retransmits;
      retransmits_->add();
      t.attempt += t.rto;
      t.rto = std::min(2 * t.rto, Link::kRtoMax);
    }
    return t.resolved;
  }

  void arm_link() {
    if (link_.scheduled || link_clogged_ || link_.in_transit.empty()) return;
    link_.scheduled = true;
    Link::InTransit& head = link_.in_transit.front();
    // Held by a clog, the front's delivery time may have passed: it goes now, in order.
    sim::Time at = resolve(head) ? head.deliver_at : head.attempt;
    sim_.schedule_at(std::max(sim_.now(), at), link_);
  }

  // A stop-the-world pause (a GC pause of the host process): no request finishes or starts
  // until resume(); service already under way resumes where it stopped.
  void pause() {
    if (paused_) return;
    paused_ = true;
    paused_at_ = sim_.now();
    pauses_->add();
  }

  void resume() {
    if (!paused_) return;
    paused_ = false;
    sim::Duration stopped = sim_.now() - paused_at_;
    paused_ns_->add(stopped);
    for (auto& w : workers_) {
      if (!w->scheduled) continue;
      if (w->due > paused_at_) {
        w->due += stopped;
        if (w->current) pause_stalled_->add();
      }
      if (w->parked) {
        w->parked = false;
        sim_.schedule_at(w->due, *w);
      }
    }
    drain_queue();
  }

  void drain_queue() {
    while (up() && !paused_ && !queue_.empty()) {
      Worker* w = idle_worker();
      if (!w) break;
      Queued q = std::move(queue_.front());
      queue_.pop_front();
      wait_->record(sim_.now() - q.enqueued_at);
      begin(*w, std::move(q.request), true);
    }
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
    drain_queue();
  }

  sim::Simulation& sim_;
  sim::Rng& rng_;
  sim::DistributionPtr service_time_;
  std::int64_t capacity_;
#ifdef SKYSIM_PLANTED_BUGS
  bool broken_check_ = false;
#endif
  sim::Kind kind_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::deque<Queued> queue_;
  std::int64_t target_ = 0;
  std::int64_t active_ = 0;
  std::int64_t busy_ = 0;
  bool shrunk_ = false;
  Link link_;
  sim::Duration link_delay_ = 0;
  bool link_clogged_ = false;
  bool link_partitioned_ = false;
  double link_loss_ = 0;
  sim::MetricsRegistry& metrics_;
  sim::Rng* loss_rng_ = nullptr;        // named when a loss or partition is first set
  sim::Counter* retransmits_ = nullptr;  // likewise
  sim::Counter* link_resets_ = nullptr;
  bool paused_ = false;
  sim::Time paused_at_ = 0;
  sim::Counter* pauses_;
  sim::Counter* paused_ns_;
  sim::Counter* pause_stalled_;
  sim::Counter* link_delayed_;
  sim::Counter* link_held_;
  sim::Counter* arrivals_;
  sim::Counter* served_;
  sim::Counter* rejected_;
  sim::Counter* dropped_;
  sim::Histogram* wait_;
};

void Worker::on_event(sim::Simulation&) { server_.service_event(*this); }
void Link::on_event(sim::Simulation&) { server_.link_event(); }

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
  // Fault hooks for `skysim fuzz` (docs/fuzzing.md); their defaults leave the M/M/c model as is.
  k.params.push_back({"link_delay",
                      ParamType::Duration,
                      "",
                      "0s",
                      0,
                      {},
                      {},
                      "extra one-way delay of the in-order link into the host (a network delay "
                      "spike when raised for a while); 0 = none",
                      true});
  k.params.push_back({"link_clogged",
                      ParamType::Bool,
                      "",
                      "false",
                      {},
                      {},
                      {},
                      "the link into the host delivers nothing while true (a clogged link); what "
                      "was sent arrives in order once it is false again",
                      true});
  k.params.push_back({"paused",
                      ParamType::Bool,
                      "",
                      "false",
                      {},
                      {},
                      {},
                      "stop-the-world pause of the host process while true (a GC pause): no "
                      "request starts or finishes, service resumes where it stopped",
                      true});
  k.params.push_back({"link_partitioned",
                      ParamType::Bool,
                      "",
                      "false",
                      {},
                      {},
                      {},
                      "a network partition between the host and its clients while true: every "
                      "segment sent into it is lost and retransmitted by TCP (RTO 200 ms "
                      "doubling, reset after tcp_retries2 = 15), so it arrives at the first "
                      "retransmission after the partition heals",
                      true});
  k.params.push_back({"link_loss",
                      ParamType::Percent,
                      "",
                      "0%",
                      0,
                      1,
                      {},
                      "share of the link's segments lost (each transmission independently, "
                      "stream queue-server/<host>/link-loss); a lost one is retransmitted after "
                      "the RTO and holds the ones behind it (in order)",
                      true});
#ifdef SKYSIM_PLANTED_BUGS
  k.params.push_back({"planted_broken_check",
                      ParamType::Bool,
                      "",
                      "false",
                      {},
                      {},
                      {},
                      "planted build only: queue.capacity off by one (the fuzzer's self-test)",
                      false});
#endif
  k.endpoints = {"serve"};
  k.build = [](World& w, const HostContext& ctx) -> std::unique_ptr<Instance> {
    return std::make_unique<QueueServer>(w, ctx);
  };
  // The queue's own view: how long it is, what flows through it, how long requests wait.
  k.report_panels = [](const std::vector<HostContext>&) {
    return std::vector<sim::ReportPanel>{
        {.title = "Queue length and busy workers",
         .series = {"queue.length", "queue.busy_workers"},
         .unit = "requests"},
        {.title = "Arrivals, served, rejected and dropped requests",
         .series = {"queue.arrivals", "queue.served", "queue.rejected", "queue.dropped"},
         .unit = "per second",
         .how = sim::PanelHow::kRate},
        {.title = "Queue wait, 99th percentile of the interval",
         .series = {"queue.wait_ns:p99"},
         .unit = "ms",
         .divide_by = 1e6}};
  };
  return k;
}

}  // namespace skysim::scenarios
