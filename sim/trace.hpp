#pragma once
// Chrome / Perfetto trace-event JSON (open the file in ui.perfetto.dev or chrome://tracing).
// One simulated actor is one "thread" (tid = ActorId), the whole run one "process" (pid 1):
//
//   sim::Tracer tracer(sim);                      // observes every executed kernel event
//   tracer.name_actor(conn.actor_id, "relay conn 3");
//   tracer.complete("getTimeline", "http", actor, start, sim.now() - start);
//   tracer.counter("tcp.timewait", tw.size());
//   ...
//   tracer.write_file("trace.json");
//
// Timestamps are microseconds with three decimals, so nanosecond times survive exactly.
// Bounded: after max_events records the tracer stops recording, counts what it dropped, and
// says so in the file ("otherData": {"dropped_events": N}) and in dropped(); per-kind event
// counts keep counting. The tracer must outlive every run_until() of its Simulation.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/simulation.hpp"

namespace sim {

class JsonWriter;

class Tracer final : public EventObserver {
 public:
  enum class KernelEvents {
    kCountOnly,  // kernel events only counted per kind (cheap; for long runs)
    kInstants,   // each executed event also written as an instant on its actor's track
  };
  struct Options {
    // assumption: 1M events is ~100 MB of JSON, about what ui.perfetto.dev opens comfortably.
    std::size_t max_events = 1'000'000;
    KernelEvents kernel_events = KernelEvents::kInstants;
  };

  explicit Tracer(Simulation& sim) : Tracer(sim, Options{}) {}
  Tracer(Simulation& sim, Options options);
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  void on_event(Time now, Kind kind, ActorId actor) override;

  // A span [start, start+dur) on an actor's track (phase "X").
  void complete(std::string_view name, std::string_view cat, ActorId actor, Time start,
                Duration dur);
  // A point on an actor's track (phase "i"), at `t` (default: now).
  void instant(std::string_view name, std::string_view cat, ActorId actor, Time t = -1);
  // A counter track (phase "C"), at `t` (default: now).
  void counter(std::string_view name, double value, Time t = -1);
  // The label of an actor's track (metadata, never dropped by the bound).
  void name_actor(ActorId actor, std::string_view name);

  std::size_t recorded() const { return events_.size(); }
  std::uint64_t dropped() const { return dropped_; }
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
    ActorId tid;
    char phase;
  };
  bool admit();
  std::uint32_t intern(std::string_view s);
  void write_record(JsonWriter& w, const Record& r) const;

  Simulation& sim_;
  Options options_;
  std::uint32_t kernel_cat_;
  std::vector<Record> events_;
  std::uint64_t dropped_ = 0;
  std::vector<std::uint64_t> per_kind_;      // by Kind
  std::vector<std::uint32_t> kind_name_id_;  // by Kind; UINT32_MAX until first seen
  std::vector<std::string> strings_;
  std::map<std::string, std::uint32_t, std::less<>> string_ids_;
  std::map<ActorId, std::string> actor_names_;
};

}  // namespace sim
