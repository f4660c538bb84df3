#include "sim/trace.hpp"

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

Tracer::Tracer(Simulation& sim, Options options) : sim_(sim), options_(options) {
  kernel_cat_ = intern("sim");
  sim_.add_observer(this);
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

void Tracer::on_event(Time now, Kind kind, ActorId actor) {
  if (kind >= per_kind_.size()) {
    per_kind_.resize(kind + 1u, 0);
    kind_name_id_.resize(kind + 1u, kUnseen);
  }
  ++per_kind_[kind];
  if (options_.kernel_events == KernelEvents::kCountOnly || !admit()) return;
  if (kind_name_id_[kind] == kUnseen) kind_name_id_[kind] = intern(sim_.kind_name(kind));
  events_.push_back(Record{now, 0, 0, kind_name_id_[kind], kernel_cat_, actor, 'i'});
}

void Tracer::complete(std::string_view name, std::string_view cat, ActorId actor, Time start,
                      Duration dur) {
  check_time(start, "start");
  check_time(dur, "duration");
  if (!admit()) return;
  events_.push_back(Record{start, dur, 0, intern(name), intern(cat), actor, 'X'});
}

void Tracer::instant(std::string_view name, std::string_view cat, ActorId actor, Time t) {
  if (!admit()) return;
  events_.push_back(Record{t < 0 ? sim_.now() : t, 0, 0, intern(name), intern(cat), actor, 'i'});
}

void Tracer::counter(std::string_view name, double value, Time t) {
  if (!admit()) return;
  events_.push_back(Record{t < 0 ? sim_.now() : t, 0, value, intern(name), 0, 0, 'C'});
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
  w.key("pid").value(1);
  switch (r.phase) {
    case 'X':
      w.key("cat").value(strings_[r.cat]);
      w.key("tid").value(r.tid);
      w.key("dur").raw(micros(r.dur));
      break;
    case 'i':
      w.key("cat").value(strings_[r.cat]);
      w.key("tid").value(r.tid);
      w.key("s").value("t");  // scope: the actor's track
      break;
    case 'C':
      w.key("args").begin_object().key("value").value(r.value).end_object();
      break;
    default:
      break;
  }
  w.end_object();
}

void Tracer::write_json(std::ostream& out) const {
  JsonWriter w(out);
  w.begin_object();
  w.key("displayTimeUnit").value("ns");
  w.key("traceEvents").begin_array();
  w.begin_object()
      .key("name")
      .value("process_name")
      .key("ph")
      .value("M")
      .key("pid")
      .value(1)
      .key("args")
      .begin_object()
      .key("name")
      .value("skysim seed " + std::to_string(sim_.seed()))
      .end_object()
      .end_object();
  for (const auto& [actor, name] : actor_names_) {
    w.begin_object()
        .key("name")
        .value("thread_name")
        .key("ph")
        .value("M")
        .key("pid")
        .value(1)
        .key("tid")
        .value(actor)
        .key("args")
        .begin_object()
        .key("name")
        .value(name)
        .end_object()
        .end_object();
  }
  for (const Record& r : events_) {
    out << '\n';  // one event per line: greppable, diffable
    write_record(w, r);
  }
  w.end_array();
  w.key("otherData").begin_object();
  w.key("seed").value(sim_.seed());
  w.key("recorded_events").value(static_cast<std::uint64_t>(events_.size()));
  w.key("dropped_events").value(dropped_);
  w.key("max_events").value(static_cast<std::uint64_t>(options_.max_events));
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
