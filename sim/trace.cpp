#include "sim/trace.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <ostream>
#include <stdexcept>

#include "sim/json.hpp"

namespace sim {
namespace {

constexpr std::uint32_t kUnseen = std::numeric_limits<std::uint32_t>::max();

// Trace-event timestamps are microseconds; three decimals keep every nanosecond.
std::string micros(Time ns) {
  std::string s = std::to_string(ns / 1000);
  auto frac = static_cast<int>(ns % 1000);
  if (frac != 0) {
    char buf[5] = {'.', static_cast<char>('0' + frac / 100),
                   static_cast<char>('0' + frac / 10 % 10), static_cast<char>('0' + frac % 10), 0};
    s += buf;
  }
  return s;
}

void check_time(Time t, const char* what) {
  if (t < 0) {
    throw std::invalid_argument(std::string("Tracer: negative ") + what + " " + std::to_string(t) +
                                " ns");
  }
}

}  // namespace

constexpr std::uint32_t kNumber = std::numeric_limits<std::uint32_t>::max();

Tracer::Tracer(Simulation& sim, Options options) : sim_(sim), options_(std::move(options)) {
  if (options_.from < 0 || options_.until < options_.from) {
    throw std::invalid_argument("Tracer: the window must have 0 <= from <= until");
  }
  if (options_.probe_interval <= 0) throw std::invalid_argument("Tracer: probe_interval <= 0");
  kernel_cat_ = intern("sim");
  kernel_instants_ = options_.kernel_events == KernelEvents::kInstants && wants("sim");
  next_probe_ = options_.from;
  sim_.add_observer(this);
  sim_.set_tracer(this);
}

Tracer::~Tracer() {
  sim_.remove_observer(this);
  if (sim_.tracer() == this) sim_.set_tracer(nullptr);
}

std::uint32_t Tracer::intern(std::string_view s) {
  auto it = string_ids_.find(s);
  if (it != string_ids_.end()) return it->second;
  auto id = static_cast<std::uint32_t>(strings_.size());
  strings_.emplace_back(s);
  string_ids_.emplace(std::string(s), id);
  return id;
}

bool Tracer::admit() {
  if (events_.size() < options_.max_events) return true;
  ++dropped_;
  return false;
}

std::uint32_t Tracer::store_args(TraceArgs args) {
  auto begin = static_cast<std::uint32_t>(args_.size());
  for (const TraceArg& a : args) {
    args_.push_back(StoredArg{intern(a.key), a.is_number ? kNumber : intern(a.text), a.number});
  }
  return begin;
}

void Tracer::push(char phase, TraceTrack track, std::uint32_t name, std::uint32_t cat, Time ts,
                  Duration dur, double value, TraceArgs args) {
  std::uint32_t begin = store_args(args);
  events_.push_back(Record{ts, dur, value, name, cat, track.pid, track.tid, begin,
                           static_cast<std::uint16_t>(args.size()), phase});
}

void Tracer::on_event(Time now, Kind kind, ActorId actor) {
  if (kind >= per_kind_.size()) {
    per_kind_.resize(kind + 1u, 0);
    kind_name_id_.resize(kind + 1u, kUnseen);
  }
  ++per_kind_[kind];
  if (!probes_.empty() && now >= next_probe_) sample_probes(now);
  if (!kernel_instants_ || !in_window(now, now)) return;
  if (!admit()) return;
  if (kind_name_id_[kind] == kUnseen) kind_name_id_[kind] = intern(sim_.kind_name(kind));
  push('i', TraceTrack{1, actor}, kind_name_id_[kind], kernel_cat_, now, 0, 0, {});
}

// ---------------------------------------------------------------- tracks

std::uint32_t Tracer::process(std::string_view name) {
  auto it = process_ids_.find(name);
  if (it != process_ids_.end()) return it->second;
  bool selected = options_.host_prefixes.empty();
  for (const std::string& p : options_.host_prefixes) {
    if (name.substr(0, p.size()) == p) selected = true;
  }
  std::uint32_t pid = 0;
  if (selected) {
    pid = static_cast<std::uint32_t>(processes_.size()) + 2;
    processes_.emplace_back();
    processes_.back().name = std::string(name);
  }
  process_ids_.emplace(std::string(name), pid);
  return pid;
}

TraceTrack Tracer::thread(std::uint32_t pid, std::string_view name) {
  if (pid < 2) return TraceTrack{};
  ProcessTrack& p = processes_[pid - 2];
  auto it = p.threads.find(name);
  if (it != p.threads.end()) return TraceTrack{pid, it->second};
  std::uint32_t tid = p.next_tid++;
  p.threads.emplace(std::string(name), tid);
  p.thread_names.emplace(tid, std::string(name));
  return TraceTrack{pid, tid};
}

TraceTrack Tracer::acquire_lane(std::uint32_t pid, std::string_view pool) {
  // After the window nothing it holds could be recorded: no lane, no empty track.
  if (pid < 2 || sim_.now() > options_.until) return TraceTrack{};
  ProcessTrack& p = processes_[pid - 2];
  auto& free = p.free_lanes[std::string(pool)];
  if (!free.empty()) {
    const std::uint32_t tid = *free.begin();  // the lowest: busy lanes stay at the top
    free.erase(free.begin());
    return TraceTrack{pid, tid};
  }
  if (p.lanes >= options_.max_lanes) {
    ++untraced_actors_;
    return TraceTrack{};
  }
  ++p.lanes;
  return thread(pid, std::string(pool) + " " + std::to_string(p.lanes));
}

void Tracer::release_lane(TraceTrack lane, std::string_view pool) {
  if (lane) processes_[lane.pid - 2].free_lanes[std::string(pool)].insert(lane.tid);
}

void Tracer::bind_lane(ActorId actor, std::uint32_t pid, std::string_view pool,
                       std::string_view name, std::string_view cat) {
  if (pid < 2 || bindings_.count(actor) != 0) return;
  TraceTrack lane = acquire_lane(pid, pool);
  if (!lane) return;
  bindings_.emplace(actor,
                    Binding{lane, std::string(pool), sim_.now(), intern(name), intern(cat)});
}

void Tracer::unbind_lane(ActorId actor, TraceArgs args) {
  auto it = bindings_.find(actor);
  if (it == bindings_.end()) return;
  const Binding& b = it->second;
  const Time now = sim_.now();
  // The lane is held whatever the categories (the actor's other slices go on it); its own
  // slice is recorded only if its category is selected.
  if (in_window(b.start, now) && wants(strings_[b.cat]) && admit()) {
    push('X', b.track, b.name, b.cat, b.start, now - b.start, 0, args);
  }
  release_lane(b.track, b.pool);
  bindings_.erase(it);
}

TraceTrack Tracer::track_of(ActorId actor) const {
  auto it = bindings_.find(actor);
  return it == bindings_.end() ? TraceTrack{} : it->second.track;
}

// ---------------------------------------------------------------- records

void Tracer::complete(TraceTrack track, std::string_view name, std::string_view cat, Time start,
                      Duration dur, TraceArgs args) {
  check_time(start, "start");
  check_time(dur, "duration");
  if (!track || !wants(cat) || !in_window(start, start + dur)) return;
  if (!admit()) return;  // before interning: a full tracer costs little
  push('X', track, intern(name), intern(cat), start, dur, 0, args);
}

void Tracer::instant(TraceTrack track, std::string_view name, std::string_view cat,
                     TraceArgs args) {
  const Time now = sim_.now();
  if (!track || !wants(cat) || !in_window(now, now)) return;
  if (!admit()) return;  // before interning: a full tracer costs little
  push('i', track, intern(name), intern(cat), now, 0, 0, args);
}

void Tracer::counter(std::uint32_t pid, std::string_view name, double value, Time t) {
  if (t < 0) t = sim_.now();
  if (pid == 0 || !wants("counter") || !in_window(t, t)) return;
  if (!admit()) return;  // before interning: a full tracer costs little
  push('C', TraceTrack{pid, 0}, intern(name), 0, t, 0, value, {});
}

void Tracer::add_probe(std::uint32_t pid, std::string_view name, std::function<double()> read) {
  if (pid == 0) return;
  probes_.push_back(Probe{pid, intern(name), std::move(read)});
}

void Tracer::sample_probes(Time now) {
  if (now > options_.until) {
    next_probe_ = kTimeMax;
    return;
  }
  for (Probe& p : probes_) {
    double v = p.read();
    if (p.seen && v == p.last) continue;
    p.seen = true;
    p.last = v;
    counter(p.pid, strings_[p.name], v, now);
  }
  // The next multiple of the interval after now: samples land on a fixed grid.
  next_probe_ = (now / options_.probe_interval + 1) * options_.probe_interval;
}

void Tracer::complete(std::string_view name, std::string_view cat, ActorId actor, Time start,
                      Duration dur) {
  complete(TraceTrack{1, actor}, name, cat, start, dur);
}

void Tracer::instant(std::string_view name, std::string_view cat, ActorId actor, Time t) {
  if (t < 0) t = sim_.now();
  if (!wants(cat) || !in_window(t, t)) return;
  if (!admit()) return;  // before interning: a full tracer costs little
  push('i', TraceTrack{1, actor}, intern(name), intern(cat), t, 0, 0, {});
}

void Tracer::counter(std::string_view name, double value, Time t) {
  if (t < 0) t = sim_.now();
  if (!in_window(t, t)) return;
  if (!admit()) return;  // before interning: a full tracer costs little
  push('C', TraceTrack{1, 0}, intern(name), 0, t, 0, value, {});
}

void TraceLane::open(Simulation& sim, std::string_view process, std::string_view pool) {
  tracer_ = sim.tracer();
  if (tracer_ == nullptr) return;
  pool_ = std::string(pool);
  track_ = tracer_->acquire_lane(tracer_->process(process), pool_);
  if (!track_) tracer_ = nullptr;
}

void TraceLane::record(Simulation& sim, std::string_view name, std::string_view cat, Time start,
                       TraceArgs args) const {
  if (tracer_ != nullptr && sim.tracer() == tracer_) {
    tracer_->complete(track_, name, cat, start, sim.now() - start, args);
  }
}

void TraceLane::close(Simulation& sim, std::string_view name, std::string_view cat, Time start,
                      TraceArgs args) {
  if (tracer_ == nullptr || sim.tracer() != tracer_) {
    tracer_ = nullptr;
    return;
  }
  record(sim, name, cat, start, args);
  tracer_->release_lane(track_, pool_);
  tracer_ = nullptr;
}

void Tracer::name_actor(ActorId actor, std::string_view name) {
  actor_names_[actor] = std::string(name);
}

std::map<std::string, std::uint64_t> Tracer::kind_counts() const {
  std::map<std::string, std::uint64_t> out;
  for (std::size_t k = 0; k < per_kind_.size(); ++k) {
    if (per_kind_[k] != 0) out[sim_.kind_name(static_cast<Kind>(k))] += per_kind_[k];
  }
  return out;
}

void Tracer::write_record(JsonWriter& w, const Record& r) const {
  w.begin_object();
  w.key("name").value(strings_[r.name]);
  w.key("ph").value(std::string_view(&r.phase, 1));
  w.key("ts").raw(micros(r.ts));
  w.key("pid").value(r.pid);
  w.key("tid").value(r.tid);
  if (r.phase != 'C') w.key("cat").value(strings_[r.cat]);
  if (r.phase == 'X') w.key("dur").raw(micros(r.dur));
  if (r.phase == 'i') w.key("s").value("t");  // scope: the thread's track
  w.key("args").begin_object();
  if (r.phase == 'C') w.key("value").value(r.value);
  for (std::uint32_t i = r.args_begin; i < r.args_begin + r.args_count; ++i) {
    const StoredArg& a = args_[i];
    w.key(strings_[a.key]);
    if (a.text == kNumber) {
      w.value(a.number);
    } else {
      w.value(strings_[a.text]);
    }
  }
  w.end_object();
  w.end_object();
}

namespace {
void metadata(JsonWriter& w, std::string_view what, std::uint32_t pid, std::uint32_t tid,
              std::string_view name) {
  w.begin_object()
      .key("name")
      .value(what)
      .key("ph")
      .value("M")
      .key("ts")
      .value(0)
      .key("pid")
      .value(pid)
      .key("tid")
      .value(tid)
      .key("args")
      .begin_object()
      .key("name")
      .value(name)
      .end_object()
      .end_object();
}
}  // namespace

void Tracer::write_metadata(JsonWriter& w) const {
  metadata(w, "process_name", 1, 0, "skysim seed " + std::to_string(sim_.seed()));
  for (const auto& [actor, name] : actor_names_) metadata(w, "thread_name", 1, actor, name);
  for (std::size_t i = 0; i < processes_.size(); ++i) {
    const auto pid = static_cast<std::uint32_t>(i + 2);
    metadata(w, "process_name", pid, 0, processes_[i].name);
    for (const auto& [tid, name] : processes_[i].thread_names) {
      metadata(w, "thread_name", pid, tid, name);
    }
  }
}

void Tracer::write_json(std::ostream& out) const {
  // Slices still open (an actor alive at the end) close now, marked unfinished.
  std::vector<Record> open;
  const Time now = sim_.now();
  for (const auto& [actor, b] : bindings_) {
    if (in_window(b.start, now) && wants(strings_[b.cat])) {
      open.push_back(Record{b.start, now - b.start, 0, b.name, b.cat, b.track.pid, b.track.tid,
                            0, 0, 'X'});
    }
  }
  // By time, and at one instant the longer slice first: the order Perfetto nests them in. Two
  // slices with the same span are an outer one and an inner one that ended with it: the inner
  // was recorded first, so the later record goes first (open slices are the outermost).
  struct Ordered {
    const Record* r;
    std::size_t seq;
  };
  std::vector<Ordered> order;
  order.reserve(events_.size() + open.size());
  for (std::size_t i = 0; i < events_.size(); ++i) order.push_back(Ordered{&events_[i], i});
  for (const Record& r : open) order.push_back(Ordered{&r, events_.size()});
  std::stable_sort(order.begin(), order.end(), [](const Ordered& a, const Ordered& b) {
    if (a.r->ts != b.r->ts) return a.r->ts < b.r->ts;
    if (a.r->dur != b.r->dur) return a.r->dur > b.r->dur;
    return a.r->phase == 'X' && b.r->phase == 'X' && a.seq > b.seq;
  });

  JsonWriter w(out);
  w.begin_object();
  w.key("displayTimeUnit").value("ns");
  w.key("traceEvents").begin_array();
  write_metadata(w);
  for (const Ordered& o : order) {
    out << '\n';  // one event per line: greppable, diffable
    write_record(w, *o.r);
  }
  w.end_array();
  w.key("otherData").begin_object();
  w.key("seed").value(sim_.seed());
  w.key("recorded_events").value(static_cast<std::uint64_t>(events_.size()));
  w.key("dropped_events").value(dropped_);
  w.key("max_events").value(static_cast<std::uint64_t>(options_.max_events));
  w.key("untraced_actors").value(untraced_actors_);
  w.key("unfinished_slices").value(static_cast<std::uint64_t>(open.size()));
  w.key("window_ns").begin_array().value(options_.from).value(options_.until).end_array();
  w.key("kernel_event_counts").begin_object();
  for (const auto& [name, n] : kind_counts()) w.key(name).value(n);
  w.end_object();
  w.end_object();
  w.end_object();
  out << '\n';
}

void Tracer::write_file(const std::string& path) const {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot open trace file '" + path + "' for writing");
  write_json(f);
  f.close();
  if (!f) throw std::runtime_error("error writing trace file '" + path + "'");
}

}  // namespace sim
