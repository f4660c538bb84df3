#include "scenarios/runner.hpp"

#include "scenarios/datacenter_fingerprint.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>

#include "scenarios/datacenter_fingerprint.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/machine.hpp"
#include "scenarios/param_scaling.hpp"
#include "scenarios/stream_families.hpp"
#include "scenarios/units.hpp"
#include "sim/json.hpp"

namespace skysim::scenarios {

std::string format_fingerprint(std::uint64_t f) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, f);
  return buf;
}

// A Poisson source: one pending arrival event at a time; diurnal shapes by thinning (draw at
// the peak rate, keep an arrival with probability rate(t)/peak).
class SourceDriver final : public sim::Handler {
 public:
  SourceDriver(const SourceSpec& spec, World& world, double scale)
      : spec_(spec),
        world_(world),
        rng_(world.sim().stream("source/" + spec.name)),
        rate_per_s_(spec.scale_by_size ? spec.rate_per_s : spec.rate_per_s * scale),
        scale_(spec.scale_by_size ? 1.0 : scale),
        size_scale_(spec.scale_by_size ? scale : 1.0) {
    kind = world.sim().intern_kind("source.arrival");
    actor_id = world.sim().new_actor_id();
    hosts_ = world.hosts(spec.target_datacenter, spec.target_service);
    sim::Labels l{{"client", spec.client}, {"endpoint", spec.endpoint}};
    auto& m = world.metrics();
    issued_ = &m.counter("requests.issued", l);
    ok_ = &m.counter("requests.ok", l);
    failed_ = &m.counter("requests.failed", l);
    late_ = &m.counter("requests.late", l);
    latency_ = &m.histogram("requests.latency_ns", l);
    if (spec.user_facing) {
      sim::Labels dc{{"dc", spec.from}};
      dc_good_ = &m.counter("user.requests.good", dc);
      dc_bad_ = &m.counter("user.requests.bad", dc);
    }
    m.gauge_fn("requests.in_flight", l, [this] { return static_cast<double>(in_flight_); });
  }

  void start() {
    running_ = true;
    if (pending_) return;
    if (spec_.first_at_start && !first_issued_) {
      // `first_arrival: at_start`: the first arrival is now; the gaps after it are drawn.
      first_issued_ = true;
      pending_ = true;
      world_.sim().schedule_at(world_.sim().now(), *this);
      return;
    }
    schedule_next();
  }
  void stop() { running_ = false; }
  void set_rate(double per_s) { rate_per_s_ = per_s * scale_; }

  void on_event(sim::Simulation& sim) override {
    pending_ = false;
    if (!running_ || sim.now() > spec_.stop) return;
    if (keep(sim.now())) issue(sim);
    schedule_next();
  }

  const SourceSpec& spec() const { return spec_; }
  std::int64_t in_flight() const { return in_flight_; }
  // This source's own counts: sources with the same client and endpoint share their metric
  // counters (users-east and users-west in the April replay), so those cannot balance alone.
  std::int64_t issued() const { return issued_count_; }
  std::int64_t completed() const { return completed_count_; }

  // requests.accounted: every issued request is completed or still in flight.
  std::string accounting_error() const {
    if (answered_twice_ > 0) {
      return std::to_string(answered_twice_) + " requests answered more than once";
    }
    if (issued() == completed() + in_flight() && in_flight() >= 0) return "";
    return "issued " + std::to_string(issued()) + " != completed " + std::to_string(completed()) +
           " + in flight " + std::to_string(in_flight());
  }
  // requests.answered: the oldest request still unanswered was issued no longer than the bound
  // ago. Without it a request a host forgot stays "in flight" for ever and accounting balances.
  std::string answer_error(sim::Time now) const {
    if (outstanding_.empty()) return "";
    sim::Time issued_at = outstanding_.front().issued_at;
    if (now - issued_at <= answer_bound()) return "";
    return "request #" + std::to_string(first_outstanding_) + " issued at " +
           world_.sim().date(issued_at) + " unanswered after " +
           sim::format_duration(now - issued_at) + " (bound: deadline + " +
           sim::format_duration(kAnswerGrace) + ")";
  }
  sim::Duration answer_bound() const { return spec_.deadline + kAnswerGrace; }

 private:
  double peak_rate() const {
    return rate_per_s_ * (1.0 + (spec_.diurnal ? spec_.diurnal->amplitude : 0.0));
  }

  // A request counts as lost when no answer, failure or timeout came this long after its
  // deadline (or its issue, without one). assumption: 5 minutes is longer than any fault the
  // fuzzer draws keeps a request waiting (a crash is at most 60 s, a clog 10 s, and every model
  // answers the requests a crash or restart strands), yet short enough that a request lost in
  // the first half of a 10-minute scenario is caught before its end.
  static constexpr sim::Duration kAnswerGrace = 5 * sim::kMinute;

  // Marks request `id` answered and drops the answered prefix of the outstanding window.
  void answered(std::uint64_t id) {
    if (id < first_outstanding_ || outstanding_[id - first_outstanding_].done) {
      ++answered_twice_;  // r.complete() must be called exactly once
      return;
    }
    outstanding_[id - first_outstanding_].done = true;
    while (!outstanding_.empty() && outstanding_.front().done) {
      outstanding_.pop_front();
      ++first_outstanding_;
    }
  }

  bool keep(sim::Time now) {
    if (!spec_.diurnal || spec_.diurnal->amplitude == 0) return true;
    std::int64_t unix_ns = world_.sim().epoch_unix_ns() + now;
    double tod = static_cast<double>(((unix_ns % sim::kDay) + sim::kDay) % sim::kDay);
    double phase = 2 * std::numbers::pi * (tod - static_cast<double>(spec_.diurnal->peak)) /
                   static_cast<double>(sim::kDay);
    double a = spec_.diurnal->amplitude;
    return rng_.uniform01() * (1 + a) < 1 + a * std::cos(phase);
  }

  void schedule_next() {
    double peak = peak_rate();
    if (!running_ || !(peak > 0)) return;
    double gap_ns = rng_.exponential(1e9 / peak);
    sim::Time at = world_.sim().now() + std::max<sim::Duration>(1, std::llround(gap_ns));
    if (at > spec_.stop) return;
    pending_ = true;
    world_.sim().schedule_at(at, *this);
  }

  void issue(sim::Simulation& sim) {
    Request r;
    r.id = ++next_id_;
    r.client = spec_.client;
    r.endpoint = spec_.endpoint;
    r.size_bytes = spec_.request_size->sample_int(rng_);
    if (size_scale_ != 1.0) {
      r.size_bytes =
          std::max<std::int64_t>(1, std::llround(static_cast<double>(r.size_bytes) * size_scale_));
    }
    r.issued_at = sim.now();
    if (spec_.deadline > 0) r.deadline = sim.now() + spec_.deadline;
    sim::Time issued_at = sim.now();
    sim::Time deadline = r.deadline;
    std::uint64_t id = r.id;
    outstanding_.push_back({issued_at, false});
    r.done = [this, issued_at, deadline, id](const Response& resp) {
      --in_flight_;
      ++completed_count_;
      answered(id);
      sim::Time now = world_.sim().now();
      (resp.ok ? ok_ : failed_)->add();
      if (resp.ok && now > deadline) late_->add();
      // What the user saw, per datacenter the request left from: answered in time or not.
      if (spec_.user_facing) (resp.ok && now <= deadline ? dc_good_ : dc_bad_)->add();
      if (resp.ok) latency_->record(now - issued_at);
    };
    issued_->add();
    ++issued_count_;
    ++in_flight_;
    Instance* host = hosts_[static_cast<std::size_t>(
        rng_.uniform_int(0, static_cast<std::int64_t>(hosts_.size()) - 1))];
    host->handle(std::move(r));
  }

  const SourceSpec& spec_;
  World& world_;
  sim::Rng& rng_;
  double rate_per_s_;
  double scale_;
  double size_scale_;
  std::vector<Instance*> hosts_;
  bool running_ = false;
  bool pending_ = false;
  bool first_issued_ = false;  // first_arrival: at_start, once per run
  std::uint64_t next_id_ = 0;
  std::int64_t in_flight_ = 0;
  std::int64_t issued_count_ = 0;
  std::int64_t completed_count_ = 0;
  std::int64_t answered_twice_ = 0;
  // Issue times of requests first_outstanding_, first_outstanding_ + 1, ...: the oldest is the
  // first not yet answered (ids are issued in order; answers come in any order).
  struct Outstanding {
    sim::Time issued_at;
    bool done;
  };
  std::deque<Outstanding> outstanding_;
  std::uint64_t first_outstanding_ = 1;
  sim::Counter* issued_;
  sim::Counter* ok_;
  sim::Counter* failed_;
  sim::Counter* late_;
  sim::Counter* dc_good_ = nullptr;  // null for an internal (not user-facing) client
  sim::Counter* dc_bad_ = nullptr;
  sim::Histogram* latency_;
};

// The models' end state, folded into the unseed: every metric's key and end value (a
// histogram's count, sum and extremes), in the registry's order, the same in every run. A
// payload change that keeps the event order (a size, a latency, a counted outcome) shows here.
static void fold_metrics(sim::Simulation& sim, const sim::MetricsRegistry& metrics) {
  metrics.for_each([&](const sim::SeriesView& s) {
    sim.fold(sim::stream_seed(0, s.key));
    if (s.type == sim::SeriesType::kHistogram) {
      sim.fold(s.histogram->count());
      sim.fold_real(s.histogram->sum());
      sim.fold(static_cast<std::uint64_t>(s.histogram->max()));
    } else if (s.type == sim::SeriesType::kCounter) {
      sim.fold(static_cast<std::uint64_t>(s.counter->value()));
    } else {
      sim.fold_real(s.type == sim::SeriesType::kGauge ? s.gauge->value() : (*s.gauge_fn)());
    }
  });
}

ScenarioRun::ScenarioRun(const Scenario& scenario, const Registry& registry)
    : scenario_(scenario),
      registry_(registry),
      sim_(std::make_unique<sim::Simulation>(scenario.seed, scenario.epoch_unix_ns)),
      groups_(std::make_unique<sim::GroupFingerprints>(*sim_)) {
  world_ = std::make_unique<World>(*sim_, metrics_);
  for (const auto& dc : scenario.datacenters) {
    for (const MachineSpec& m : dc.machines) {
      for (int i = 0; i < m.count; ++i) {
        world_->add_machine(
            std::make_unique<Machine>(*sim_, metrics_, m.path(i), m.params, scenario.scale));
      }
    }
  }
  for (const auto& dc : scenario.datacenters) {
    for (const auto& svc : dc.services) {
      const ServiceKind* kind = registry.find(svc.kind);
      if (!kind) throw ScenarioError({{scenario.file, "", "unknown kind " + svc.kind, ""}});
      for (int i = 0; i < svc.hosts; ++i) {
        HostContext ctx{dc.name,
                        svc.name,
                        svc.kind,
                        i,
                        svc.hosts,
                        scenario.scale,
                        scaled_values(kind->params, svc.host_params[static_cast<std::size_t>(i)],
                                      scenario.scale),
                        svc.program,
                        svc.machine.empty() ? std::string()
                                            : machine_path(dc.name, svc.machine, i)};
        world_->add(kind->build(*world_, ctx));
      }
    }
  }
  for (const auto& [path, inst] : world_->instances()) inst->start(*world_);
  for (const auto& src : scenario.sources) {
    sources_.push_back(std::make_unique<SourceDriver>(src, *world_, scenario.scale));
  }
  if (!scenario.invariants.empty()) {
    auto known = check_invariants();
    for (const auto& want : scenario.invariants) {
      bool found = false;
      std::string names;
      for (const auto& k : known) {
        found = found || k.name == want;
        if (names.find(k.name) == std::string::npos) names += (names.empty() ? "" : ", ") + k.name;
      }
      if (!found) {
        throw ScenarioError({{scenario.file, "invariants",
                              "no host provides invariant '" + want + "'", "one of: " + names}});
      }
    }
  }
  sampler_ = std::make_unique<sim::TimeSeriesSampler>(*sim_, metrics_, scenario.metrics_interval);
  schedule_timeline();
}

ScenarioRun::~ScenarioRun() {
  // Pending events point at hosts and sources: free the queue (shutdown) before them. The hosts
  // go before the Simulation itself, whose state their destructors may still read (a fan-out
  // host asks whether it is shutting down: found freed under ASan when the Simulation went first).
  sampler_->stop();
  sim_->shutdown();
  sources_.clear();
  world_.reset();
  sim_.reset();
}

void ScenarioRun::schedule_timeline() {
  sim::Simulation& sim = *sim_;
  sim::Kind start_kind = sim.intern_kind("source.start");
  for (auto& src : sources_) {
    if (!src->spec().enabled) continue;
    SourceDriver* s = src.get();
    sim.call_at(src->spec().start, start_kind, [s] { s->start(); });
  }
  sim::Kind kind = sim.intern_kind("timeline");
  for (const auto& entry : scenario_.timeline) {
    const TimelineEntry* e = &entry;
    sim.call_at(entry.at, kind, [this, e] {
      for (const Action& a : e->actions) {
        switch (a.type) {
          case ActionType::SetParam:
            set_host_param(a.target, a.param, a.value);
            break;
          case ActionType::SetMachineParam: {
            static const std::vector<sim::ParamSpec> machine_specs = machine_params();
            const auto spec = std::find_if(machine_specs.begin(), machine_specs.end(),
                                           [&](const sim::ParamSpec& p) { return p.name == a.param; });
            world_->machine(a.target).set(
                a.param, spec != machine_specs.end() ? scaled_value(*spec, a.value, scenario_.scale)
                                                     : a.value);
            break;
          }
          case ActionType::Crash:
            metrics_.counter("host.crashes", {{"host", a.target}}).add();
            world_->find(a.target)->crash();
            break;
          case ActionType::Restart:
            world_->find(a.target)->restart();
            break;
          case ActionType::StartSource:
          case ActionType::StopSource:
          case ActionType::SetSourceRate:
            for (auto& s : sources_) {
              if (s->spec().name != a.target) continue;
              if (a.type == ActionType::StartSource) s->start();
              if (a.type == ActionType::StopSource) s->stop();
              if (a.type == ActionType::SetSourceRate) s->set_rate(a.value.number);
            }
            break;
        }
      }
    });
  }
}

RunResult ScenarioRun::run(std::optional<sim::Time> until,
                           const std::function<void(const sim::Simulation&)>& on_slice) {
  sim::Time end = until.value_or(scenario_.duration);
  if (!sampler_started_) {
    sampler_->start();
    sampler_started_ = true;
  }
  sim::Duration slice = std::max<sim::Duration>(1, scenario_.duration / 200);
  for (sim::Time t = std::min(end, slice);; t = std::min(end, t + slice)) {
    sim_->run_until(t);
    if (watch_invariants_) watch_invariants(t - std::min(t, slice));
    if (on_slice) on_slice(*sim_);
    if (t >= end || !stop_reason_.empty()) break;
  }
  sampler_->sample_now();
  for (const auto& [path, inst] : world_->instances()) inst->finish(*world_);
  fold_metrics(*sim_, metrics_);
  RunResult r;
  r.unseed = sim_->unseed();
  r.stream_draws = sim_->stream_draws();
  if (!stop_reason_.empty()) {
    r.stopped_early = stop_reason_;
  } else if (end < scenario_.duration) {
    r.stopped_early = "--until " + sim::format_iso8601(scenario_.epoch_unix_ns + end);
  }
  r.fingerprint = sim_->fingerprint();
  for (const auto& g : groups_->groups()) r.sub_fingerprints.emplace_back(g.name, g.fingerprint);
  r.events_by_kind = groups_->kind_events();
  for (const auto& dc : scenario_.datacenters) {
    r.datacenter_fingerprints.emplace_back(dc.name, datacenter_fingerprint(*sampler_, dc.name));
  }
  r.events = sim_->events_executed();
  r.kernel = sim_->stats();
  r.end = sim_->now();
  for (auto& inv : check_invariants()) {
    if (!wanted(inv.name)) continue;
    // One that broke during the run and held again at the end is still broken.
    auto seen = broken_.find({inv.name, inv.instance});
    if (inv.error.empty() && seen != broken_.end()) {
      inv.error = seen->second.error + " (seen at " + sim_->date(seen->second.seen_at) +
                  "; held again at the end)";
    }
    r.invariants.push_back(std::move(inv));
  }
  if (locate_violations_ && !steered_) {
    // The earliest break seen during the run is located within its slice; one seen only at the
    // end is searched for over the whole run.
    const Broken* first = nullptr;
    for (const auto& [key, b] : broken_) {
      if (!first || b.seen_at < first->seen_at) first = &b;
    }
    if (first) {
      r.violation = locate_violation(first->which, end, first->slice_start);
    } else {
      for (const auto& inv : r.invariants) {
        if (inv.error.empty()) continue;
        r.violation = locate_violation(inv, end);
        break;
      }
    }
  }
  return r;
}

bool ScenarioRun::wanted(const std::string& invariant) const {
  return scenario_.invariants.empty() ||
         std::find(scenario_.invariants.begin(), scenario_.invariants.end(), invariant) !=
             scenario_.invariants.end();
}

// Every invariant at the end of a slice: a violation that comes and goes between two ticks of
// the run is kept (the first error of each instance), with the slice it was first seen in.
void ScenarioRun::watch_invariants(sim::Time slice_start) {
  for (auto& inv : check_invariants(/*ticking=*/true)) {
    if (inv.error.empty() || !wanted(inv.name)) continue;
    auto key = std::make_pair(inv.name, inv.instance);
    if (broken_.count(key)) continue;
    Broken b{inv, inv.error, sim_->now(), slice_start};
    broken_.emplace(std::move(key), std::move(b));
  }
}

std::function<std::string()> ScenarioRun::invariant_check(const InvariantResult& which) {
  for (const auto& src : sources_) {
    if ("source/" + src->spec().name != which.instance) continue;
    SourceDriver* s = src.get();
    if (which.name == "requests.accounted") return [s] { return s->accounting_error(); };
    sim::Simulation* sim = sim_.get();
    if (which.name == "requests.answered") return [s, sim] { return s->answer_error(sim->now()); };
  }
  if (Instance* inst = world_->find(which.instance)) {
    for (auto& inv : inst->invariants()) {
      if (inv.name == which.name) return inv.check;
    }
  }
  return {};
}

namespace {

// Checks one invariant before every event, i.e. after the one before it; at the first failure
// it keeps the event that broke it and stops the run.
class ViolationWatch final : public sim::EventObserver {
 public:
  ViolationWatch(sim::Simulation& sim, std::function<std::string()> check)
      : sim_(sim), check_(std::move(check)) {
    sim.add_observer(this);
  }
  void on_event(sim::Time now, sim::Kind kind, sim::ActorId actor) override {
    if (!found_ && seen_) after_event();
    seen_ = true;
    last_ = {now, sim_.events_executed(), kind, actor};
  }
  // After the last event of a stretch: did that one break it?
  void after_event() {
    if (found_ || !seen_) return;
    std::string e = check_();
    if (e.empty()) return;
    found_ = true;
    error_ = std::move(e);
    violator_ = last_;
    sim_.stop();
  }
  bool found() const { return found_; }
  const std::string& error() const { return error_; }
  struct Event {
    sim::Time at = 0;
    std::uint64_t seq = 0;
    sim::Kind kind = 0;
    sim::ActorId actor = 0;
  };
  const Event& violator() const { return violator_; }

 private:
  sim::Simulation& sim_;
  std::function<std::string()> check_;
  bool seen_ = false;
  bool found_ = false;
  Event last_, violator_;
  std::string error_;
};

}  // namespace

// Two replays of the same (deterministic) run: the first checks the invariant at every 1/200 of
// the span to find the stretch where it broke; the second runs to the start of that stretch and
// checks it after every event, stopping at the event that broke it.
Violation ScenarioRun::locate_violation(const InvariantResult& failed, sim::Time end,
                                        std::optional<sim::Time> stretch_start) {
  Violation v;
  v.invariant = failed.name;
  v.instance = failed.instance;
  v.error = failed.error;
  v.at_end = true;
  v.at = end;
  sim::Duration slice = std::max<sim::Duration>(1, scenario_.duration / 200);
  sim::Time broken_by = -1;
  if (stretch_start) {
    broken_by = std::min(end, *stretch_start + slice);  // the run saw it broken at this tick
  } else {
    ScenarioRun coarse(scenario_, registry_);
    auto check = coarse.invariant_check(failed);
    if (!check) return v;
    for (sim::Time t = std::min(end, slice);; t = std::min(end, t + slice)) {
      coarse.advance_to(t);
      if (!check().empty()) {
        broken_by = t;
        break;
      }
      if (t >= end) break;
    }
  }
  if (broken_by < 0) return v;  // held at every instant of the run: it broke in finish()
  ScenarioRun fine(scenario_, registry_);
  auto check = fine.invariant_check(failed);
  fine.advance_to(std::max<sim::Time>(0, broken_by - slice));
  ViolationWatch watch(fine.sim(), check);
  fine.advance_to(broken_by);
  watch.after_event();
  if (!watch.found()) return v;
  v.at_end = false;
  v.error = watch.error();
  v.at = watch.violator().at;
  v.event = watch.violator().seq;
  v.kind = fine.sim().kind_name(watch.violator().kind);
  v.actor = watch.violator().actor;
  return v;
}

void ScenarioRun::advance_to(sim::Time t) {
  steered_ = true;
  if (!sampler_started_) {
    sampler_->start();
    sampler_started_ = true;
  }
  sim_->run_until(t);
}

bool ScenarioRun::set_host_param(const std::string& target, const std::string& param,
                                 const sim::ParamValue& written) {
  Instance* host = world_->find(target);
  if (host == nullptr) return false;
  // A deploy's path into a program is no parameter of the kind: the host scales it against
  // its step or client.
  const sim::ParamSpec* spec = registry_.find(host->context().kind)->param(param);
  host->set(param, spec ? scaled_value(*spec, written, scenario_.scale) : written);
  return true;
}

bool ScenarioRun::set_source_rate(const std::string& name, double per_s) {
  steered_ = true;
  bool found = false;
  for (auto& s : sources_) {
    if (s->spec().name == name) {
      s->set_rate(per_s);
      found = true;
    }
  }
  return found;
}

std::vector<InvariantResult> ScenarioRun::check_invariants(bool ticking) {
  std::vector<InvariantResult> out;
  for (const auto& src : sources_) {
    out.push_back({"requests.accounted", "source/" + src->spec().name, src->accounting_error()});
    out.push_back(
        {"requests.answered", "source/" + src->spec().name, src->answer_error(sim_->now())});
  }
  for (const auto& [path, inst] : world_->instances()) {
    for (auto& inv : inst->invariants()) {
      if (ticking && (inv.end_only || !wanted(inv.name))) continue;
      out.push_back({inv.name, path, inv.check()});
    }
  }
  return out;
}

namespace {

bool reported(const Scenario& s, const std::string& name) {
  if (s.report.empty()) return true;
  for (const auto& p : s.report) {
    if (name.rfind(p, 0) == 0) return true;
  }
  return false;
}

std::string ms(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ns / 1e6);
  return buf;
}

}  // namespace

std::string describe_violation(const Violation& v, const Scenario& s) {
  std::ostringstream o;
  std::string date = sim::format_iso8601(s.epoch_unix_ns + v.at);
  if (v.at_end) {
    o << "  " << v.invariant << " held at every event and broke only when the run ended (" << date
      << ")\n";
    return o.str();
  }
  o << "  first broken by event #" << v.event << " (" << v.kind << ", actor " << v.actor << ") at "
    << date << " (+" << sim::format_duration(v.at) << ") on " << v.instance << ": " << v.error
    << "\n";
  o << "  stop there: skysim run " << s.file << " --seed " << s.seed << " --until " << date << "\n";
  return o.str();
}

std::vector<std::pair<std::string, Milestone>> ScenarioRun::phases() const {
  std::vector<std::pair<std::string, Milestone>> out;
  for (const auto& [path, inst] : world_->instances()) {
    for (auto& m : inst->milestones()) out.emplace_back(path, std::move(m));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second.at < b.second.at; });
  return out;
}

std::string ScenarioRun::summary_table(const RunResult& r, double wall_seconds) const {
  std::ostringstream o;
  char line[512];
  o << "scenario     " << scenario_.name << "  (" << scenario_.file << ")\n";
  o << "seed         " << scenario_.seed << "   scale " << format_real(scenario_.scale) << "\n";
  o << "simulated    " << sim::format_iso8601(scenario_.epoch_unix_ns) << " .. "
    << sim::format_iso8601(scenario_.epoch_unix_ns + r.end) << "  (" << sim::format_duration(r.end)
    << ")\n";
  std::snprintf(line, sizeof line, "events       %" PRIu64 "  in %.2f s wall (%.2f M events/s)\n",
                r.events, wall_seconds,
                wall_seconds > 0 ? static_cast<double>(r.events) / wall_seconds / 1e6 : 0.0);
  o << line;
  std::snprintf(line, sizeof line,
                "kernel       %" PRIu64 " stale pops, peak %" PRIu64 " pending events, peak %" PRIu64
                " process frames\n",
                r.kernel.stale_pops, r.kernel.peak_pending, r.kernel.peak_frames);
  o << line;
  o << "fingerprint  " << format_fingerprint(r.fingerprint) << "\n";
  if (!r.sub_fingerprints.empty()) {
    o << "  per model ";
    for (const auto& [group, f] : r.sub_fingerprints)
      o << " " << group << "=" << format_fingerprint(f);
    o << "\n";
  }
  if (!r.datacenter_fingerprints.empty()) {
    o << "  per datacenter";
    for (const auto& [dc, f] : r.datacenter_fingerprints) o << " " << dc << "=" << format_fingerprint(f);
    o << "\n";
  }
  o << "unseed       " << format_fingerprint(r.unseed)
    << "  (stream draw counts and model folds)\n";
  o << "\n";
  auto ph = phases();
  if (!ph.empty()) {
    o << "phases\n";
    for (const auto& [host, m] : ph) {
      o << "  " << sim::format_iso8601(scenario_.epoch_unix_ns + m.at) << "  " << host << "  "
        << m.what << "\n";
    }
    o << "\n";
  }
  std::snprintf(line, sizeof line, "%-64s %14s %10s %10s %10s %10s\n", "metric", "value/count",
                "mean ms", "p50 ms", "p99 ms", "max ms");
  o << line;
  metrics_.for_each([&](const sim::SeriesView& s) {
    if (!reported(scenario_, s.name)) return;
    std::string key = s.key.size() > 64 ? s.key.substr(0, 61) + "..." : s.key;
    if (s.type == sim::SeriesType::kHistogram) {
      const auto& h = *s.histogram;
      std::snprintf(line, sizeof line, "%-64s %14" PRIu64 " %10s %10s %10s %10s\n", key.c_str(),
                    h.count(), ms(h.mean()).c_str(),
                    ms(static_cast<double>(h.quantile(0.5))).c_str(),
                    ms(static_cast<double>(h.quantile(0.99))).c_str(),
                    ms(static_cast<double>(h.max())).c_str());
    } else {
      double v = s.type == sim::SeriesType::kCounter ? static_cast<double>(s.counter->value())
                 : s.type == sim::SeriesType::kGauge ? s.gauge->value()
                                                     : (*s.gauge_fn)();
      std::string text = v == std::floor(v) && std::fabs(v) < 1e15 ? std::to_string(std::llround(v))
                                                                   : format_real(v);
      std::snprintf(line, sizeof line, "%-64s %14s\n", key.c_str(), text.c_str());
    }
    o << line;
  });
  std::size_t failed = 0;
  for (const auto& inv : r.invariants) failed += inv.error.empty() ? 0 : 1;
  o << "\ninvariants   " << r.invariants.size() - failed << "/" << r.invariants.size() << " hold\n";
  for (const auto& inv : r.invariants) {
    if (!inv.error.empty())
      o << "  FAILED " << inv.name << " @ " << inv.instance << ": " << inv.error << "\n";
  }
  if (r.violation) o << describe_violation(*r.violation, scenario_);
  return o.str();
}

void ScenarioRun::write_outputs(const std::string& dir, const RunResult& r, double wall_seconds,
                                const Provenance& provenance) const {
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir + "/summary.json");
    if (!f) throw std::runtime_error("cannot write " + dir + "/summary.json");
    sim::JsonWriter w(f);
    w.begin_object();
    w.key("scenario").value(scenario_.name);
    w.key("file").value(scenario_.file);
    w.key("skysim").begin_object();
    w.key("version").value(provenance.version).key("commit").value(provenance.commit);
    w.key("build_type").value(provenance.build_type).end_object();
    w.key("scenario_hash").value(scenario_hash(scenario_));
    w.key("seed").value(scenario_.seed);
    w.key("scale").value(scenario_.scale);
    w.key("epoch").value(sim::format_iso8601(scenario_.epoch_unix_ns));
    w.key("duration").value(sim::format_duration(scenario_.duration));
    w.key("simulated_end").value(sim::format_iso8601(scenario_.epoch_unix_ns + r.end));
    w.key("until").value(provenance.until);
    w.key("complete").value(r.stopped_early.empty());
    w.key("stopped_early").value(r.stopped_early);
    w.key("fingerprint").value(format_fingerprint(r.fingerprint));
    w.key("sub_fingerprints").begin_object();
    for (const auto& [group, f] : r.sub_fingerprints) w.key(group).value(format_fingerprint(f));
    w.end_object();
    w.key("datacenter_fingerprints").begin_object();
    for (const auto& [dc, f] : r.datacenter_fingerprints) w.key(dc).value(format_fingerprint(f));
    w.end_object();
    w.key("unseed").value(format_fingerprint(r.unseed));
    w.key("stream_draws").begin_object();
    // Big families of numbered streams as one count + digest each (scenarios/stream_families.hpp).
    for (const auto& e : fold_stream_families(r.stream_draws)) {
      w.key(e.name);
      if (const auto* n = std::get_if<std::uint64_t>(&e.value)) {
        w.value(static_cast<std::int64_t>(*n));
        continue;
      }
      const auto& f = std::get<StreamFamily>(e.value);
      w.begin_object();
      w.key("streams").value(static_cast<std::int64_t>(f.streams));
      w.key("draws").value(static_cast<std::int64_t>(f.draws));
      w.key("digest").value(format_fingerprint(f.digest));
      w.end_object();
    }
    w.end_object();
    w.key("events").value(static_cast<std::int64_t>(r.events));
    w.key("events_by_kind").begin_object();
    for (const auto& [kind, n] : r.events_by_kind) w.key(kind).value(static_cast<std::int64_t>(n));
    w.end_object();
    w.key("kernel").begin_object();
    w.key("stale_pops").value(static_cast<std::int64_t>(r.kernel.stale_pops));
    w.key("peak_pending_events").value(static_cast<std::int64_t>(r.kernel.peak_pending));
    w.key("peak_frames").value(static_cast<std::int64_t>(r.kernel.peak_frames));
    w.key("frames_freed").value(static_cast<std::int64_t>(r.kernel.frames_freed));
    w.end_object();
    w.key("wall_seconds").value(wall_seconds);
    w.key("invariants_hold").value(r.invariants_hold());
    w.key("invariants").begin_array();
    for (const auto& inv : r.invariants) {
      w.begin_object().key("name").value(inv.name).key("instance").value(inv.instance);
      w.key("ok").value(inv.error.empty()).key("error").value(inv.error).end_object();
    }
    w.end_array();
    if (r.violation) {
      const Violation& v = *r.violation;
      w.key("violation").begin_object();
      w.key("invariant").value(v.invariant).key("instance").value(v.instance);
      w.key("error").value(v.error).key("at_end").value(v.at_end);
      w.key("at").value(sim::format_iso8601(scenario_.epoch_unix_ns + v.at));
      w.key("event").value(static_cast<std::int64_t>(v.event));
      w.key("kind").value(v.kind).key("actor").value(static_cast<std::int64_t>(v.actor));
      w.end_object();
    }
    w.key("phases").begin_array();
    for (const auto& [host, m] : phases()) {
      w.begin_object().key("at").value(sim::format_iso8601(scenario_.epoch_unix_ns + m.at));
      w.key("host").value(host).key("what").value(m.what).end_object();
    }
    w.end_array();
    w.key("metrics");
    metrics_.write_json(w);
    w.end_object();
    f << "\n";
    if (!f) throw std::runtime_error("error writing " + dir + "/summary.json");
  }
  sampler_->write_csv_file(dir + "/timeseries.csv");
  std::ofstream y(dir + "/scenario.resolved.yaml");
  y << resolved_yaml(scenario_);
  if (!y) throw std::runtime_error("cannot write " + dir + "/scenario.resolved.yaml");
}

}  // namespace skysim::scenarios
