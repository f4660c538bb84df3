#pragma once
// Chrome / Perfetto trace-event JSON (open the file in ui.perfetto.dev or chrome://tracing;
// the format and what each model records: docs/tracing.md).
//
// Tracks. Process 1 is the run itself (its kernel instants and scenario-wide counters); every
// host gets a process of its own, named by its path ("east/dataplane/0"), with named thread
// tracks ("GC") and lanes: a lane is a thread track a concurrent actor (a goroutine) holds
// from its start to its end, so the slices on one lane never overlap and nest as a stack:
//
//   sim::Tracer tracer(sim);                        // attaches itself: sim.tracer() == &tracer
//   auto pid = tracer.process("east/dataplane/0");
//   tracer.bind_lane(actor, pid, "goroutine", "goroutine", "go");   // at the goroutine's start
//   tracer.complete(tracer.track_of(actor), "memcached.get", "memcached", start, dur,
//                   {{"key", key}, {"error", text}});
//   tracer.unbind_lane(actor);                      // its own slice, from bind to now
//   tracer.add_probe(pid, "go.threads", [&] { return double(go.threads()); });  // a counter
//   tracer.write_file("trace.json");
//
// Models reach the tracer through Simulation::tracer() and test it for null first, so an
// untraced run pays a null test per hook; sim/trace_span.hpp wraps that for coroutines.
// Tracing only observes: it schedules nothing and draws no random number.
//
// Timestamps are microseconds with three decimals, so nanosecond times survive exactly.
// Selection (Options): a time window, a set of categories and host-path prefixes; what falls
// outside is not recorded and not counted as dropped. Bounded: after max_events records the
// tracer stops recording and counts what it dropped (dropped()); a host with more concurrent
// actors than max_lanes leaves the surplus untraced (untraced_actors()). Both are also written
// into the file ("otherData"). The tracer detaches itself from its Simulation when destroyed.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/simulation.hpp"

namespace sim {

class JsonWriter;

// A (process, thread) pair in the file; pid 0 is "not traced" (filtered out, no lane free).
struct TraceTrack {
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  explicit operator bool() const { return pid != 0; }
  bool operator==(const TraceTrack&) const = default;
};

// One entry of a slice's "args": a number or a text.
struct TraceArg {
  TraceArg(std::string_view k, std::string_view v) : key(k), text(v) {}
  TraceArg(std::string_view k, const char* v) : key(k), text(v) {}
  TraceArg(std::string_view k, const std::string& v) : key(k), text(v) {}
  TraceArg(std::string_view k, double v) : key(k), number(v), is_number(true) {}
  TraceArg(std::string_view k, std::int64_t v)
      : key(k), number(static_cast<double>(v)), is_number(true) {}
  TraceArg(std::string_view k, std::uint64_t v)
      : key(k), number(static_cast<double>(v)), is_number(true) {}
  TraceArg(std::string_view k, int v) : key(k), number(v), is_number(true) {}
  std::string_view key;
  std::string_view text;
  double number = 0;
  bool is_number = false;
};
using TraceArgs = std::initializer_list<TraceArg>;

class Tracer final : public EventObserver {
 public:
  enum class KernelEvents {
    kCountOnly,  // kernel events only counted per kind (cheap; for long runs)
    kInstants,   // each executed event also an instant on process 1, category "sim"
  };
  struct Options {
    // assumption: ~140 bytes an event at most (a Scylla slice with its args), so 700k events stay
    // under 100 MB of JSON, about what ui.perfetto.dev opens comfortably.
    std::size_t max_events = 700'000;
    KernelEvents kernel_events = KernelEvents::kInstants;
    Time from = 0;          // simulated ns: record what overlaps [from, until]
    Time until = kTimeMax;
    std::set<std::string> categories;     // empty: every category
    std::vector<std::string> host_prefixes;  // empty: every host; else a process name must
                                             // start with one of them
    std::uint32_t max_lanes = 2048;      // lanes per process (thread tracks stay bounded)
    Duration probe_interval = 10 * kMillisecond;  // counters are read this often (on change)
  };

  explicit Tracer(Simulation& sim) : Tracer(sim, Options{}) {}
  Tracer(Simulation& sim, Options options);
  ~Tracer() override;
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  void on_event(Time now, Kind kind, ActorId actor) override;

  // ---- Tracks
  // The pid of the process track named `name` (created on first use); 0 when the host filter
  // leaves it out.
  std::uint32_t process(std::string_view name);
  // A named thread track of a process (created on first use); none for pid 0.
  TraceTrack thread(std::uint32_t pid, std::string_view name);
  // Gives `actor` the lowest free lane of `pid` ("<pool> <n>") and opens its slice `name` there;
  // the actor's slices go on that lane (track_of) until unbind_lane, which closes the slice.
  // No lane (untraced) for pid 0 or when max_lanes are taken. The slice `name` itself is
  // recorded only when `cat` is selected; the lane is held either way.
  void bind_lane(ActorId actor, std::uint32_t pid, std::string_view pool, std::string_view name,
                 std::string_view cat);
  void unbind_lane(ActorId actor, TraceArgs args = {});
  TraceTrack track_of(ActorId actor) const;
  // The same lanes for an actor that is no process (a reused job object): the caller keeps the
  // track and gives it back; empty when max_lanes are taken.
  TraceTrack acquire_lane(std::uint32_t pid, std::string_view pool);
  void release_lane(TraceTrack lane, std::string_view pool);

  // ---- Records
  bool wants(std::string_view cat) const {
    return options_.categories.empty() || options_.categories.count(std::string(cat)) != 0;
  }
  // A slice [start, start+dur] on a track (phase "X"); nothing for an empty track.
  void complete(TraceTrack track, std::string_view name, std::string_view cat, Time start,
                Duration dur, TraceArgs args = {});
  // A point on a track (phase "i", thread scope), now.
  void instant(TraceTrack track, std::string_view name, std::string_view cat, TraceArgs args = {});
  // A counter sample of a process (phase "C") at `t` (default: now).
  void counter(std::uint32_t pid, std::string_view name, double value, Time t = -1);
  // A counter read every probe_interval of simulated time (between events, never scheduling
  // one) and recorded when it changed. `read` must not change the model.
  void add_probe(std::uint32_t pid, std::string_view name, std::function<double()> read);

  // ---- The original per-actor API (process 1, one track per actor)
  void complete(std::string_view name, std::string_view cat, ActorId actor, Time start,
                Duration dur);
  void instant(std::string_view name, std::string_view cat, ActorId actor, Time t = -1);
  void counter(std::string_view name, double value, Time t = -1);
  void name_actor(ActorId actor, std::string_view name);

  std::size_t recorded() const { return events_.size(); }
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t untraced_actors() const { return untraced_actors_; }
  const Options& options() const { return options_; }
  // Executed kernel events per kind name (all of them, bound or not), in name order.
  std::map<std::string, std::uint64_t> kind_counts() const;

  void write_json(std::ostream& out) const;
  void write_file(const std::string& path) const;  // throws std::runtime_error on failure

 private:
  struct Record {
    Time ts;
    Duration dur;  // phase X only
    double value;  // phase C only
    std::uint32_t name;
    std::uint32_t cat;
    std::uint32_t pid;
    std::uint32_t tid;
    std::uint32_t args_begin;  // into args_
    std::uint16_t args_count;
    char phase;
  };
  struct StoredArg {
    std::uint32_t key;
    std::uint32_t text;  // string id, or kNumber
    double number;
  };
  struct ProcessTrack {
    std::string name;
    std::uint32_t next_tid = 1;
    std::map<std::string, std::uint32_t, std::less<>> threads;  // name -> tid
    std::map<std::uint32_t, std::string> thread_names;          // tid -> name
    std::map<std::string, std::set<std::uint32_t>, std::less<>> free_lanes;  // pool -> tids
    std::uint32_t lanes = 0;
  };
  struct Binding {
    TraceTrack track;
    std::string pool;
    Time start;
    std::uint32_t name;
    std::uint32_t cat;
  };
  struct Probe {
    std::uint32_t pid;
    std::uint32_t name;
    std::function<double()> read;
    bool seen = false;
    double last = 0;
  };

  bool in_window(Time start, Time end) const {
    return end >= options_.from && start <= options_.until;
  }
  bool admit();
  std::uint32_t intern(std::string_view s);
  std::uint32_t store_args(TraceArgs args);
  void push(char phase, TraceTrack track, std::uint32_t name, std::uint32_t cat, Time ts,
            Duration dur, double value, TraceArgs args);
  void sample_probes(Time now);
  void write_record(JsonWriter& w, const Record& r) const;
  void write_metadata(JsonWriter& w) const;

  Simulation& sim_;
  Options options_;
  std::uint32_t kernel_cat_;
  bool kernel_instants_;  // each kernel event recorded as an instant (Options, category "sim")
  std::vector<Record> events_;
  std::vector<StoredArg> args_;
  std::uint64_t dropped_ = 0;
  std::uint64_t untraced_actors_ = 0;
  std::vector<std::uint64_t> per_kind_;      // by Kind
  std::vector<std::uint32_t> kind_name_id_;  // by Kind; UINT32_MAX until first seen
  std::vector<std::string> strings_;
  std::map<std::string, std::uint32_t, std::less<>> string_ids_;
  std::map<ActorId, std::string> actor_names_;
  std::vector<ProcessTrack> processes_;  // pid - 2 (pid 1 is the run)
  std::map<std::string, std::uint32_t, std::less<>> process_ids_;  // name -> pid, 0 = filtered
  std::map<ActorId, Binding> bindings_;
  std::vector<Probe> probes_;
  Time next_probe_ = 0;
};

// A lane held by a callback-driven actor (a job object serving one operation at a time):
//   lane_.open(sim, "east/fanout/0", "post");  ... lane_.record(sim, "page", "fanout", t0);
//   lane_.close(sim, "post fan-out", "fanout", started, {{"author", a}});
// Every call is a no-op without a tracer, or when the lane was opened under another one.
class TraceLane {
 public:
  void open(Simulation& sim, std::string_view process, std::string_view pool);
  // A slice [start, now] on the lane.
  void record(Simulation& sim, std::string_view name, std::string_view cat, Time start,
              TraceArgs args = {}) const;
  // The lane's own slice [start, now], then the lane is free again.
  void close(Simulation& sim, std::string_view name, std::string_view cat, Time start,
             TraceArgs args = {});

 private:
  Tracer* tracer_ = nullptr;
  TraceTrack track_;
  std::string pool_;
};

}  // namespace sim
