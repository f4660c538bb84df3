#pragma once
// The determinism contract's diagnosis: when a re-run's fingerprint differs, fuzz re-runs the
// seed twice more with an EventLog attached and names the first event where the two runs part.
// The log is an EventObserver, so it costs nothing unless attached: the kernel's hot path only
// walks an empty observer list in every other run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/simulation.hpp"

namespace skysim::fuzz {

// One executed event: its number in the run (1-based), simulated time, kind, actor, and the
// kernel's rolling fingerprint right after it.
struct EventRecord {
  std::uint64_t seq = 0;
  sim::Time time = 0;
  std::uint64_t hash = 0;
  sim::ActorId actor = 0;
  sim::Kind kind = 0;
  bool operator==(const EventRecord&) const = default;
};

class EventLog final : public sim::EventObserver {
 public:
  explicit EventLog(sim::Simulation& sim) : sim_(sim) { sim.add_observer(this); }
  void on_event(sim::Time now, sim::Kind kind, sim::ActorId actor) override;

  const std::vector<EventRecord>& records() const { return records_; }
  // Kind names by id, taken from the simulation (call after the run).
  std::vector<std::string> kind_names() const;

  // A compact binary file: header, kind names, then 24 bytes per event. Throws on I/O errors.
  void write_file(const std::string& path) const;

 private:
  sim::Simulation& sim_;
  std::vector<EventRecord> records_;
};

struct LoadedLog {
  std::vector<std::string> kinds;
  std::vector<EventRecord> records;
  std::string kind_name(sim::Kind k) const;
};
// Throws std::runtime_error on a missing or malformed file.
LoadedLog read_event_log(const std::string& path);

struct Divergence {
  std::size_t index = 0;            // first position where the runs differ (0-based)
  std::optional<EventRecord> a, b;  // empty when that run had already ended
};
// The first event where the two logs differ, or nothing when they are identical. An event
// "differs" when its time, kind or actor differs; the rolling hash then differs from there on.
std::optional<Divergence> first_divergence(const std::vector<EventRecord>& a,
                                           const std::vector<EventRecord>& b);

// Human lines naming the divergence (and the last event both runs agreed on), times shown as
// dates since `epoch_unix_ns`.
std::string describe_divergence(const Divergence& d, const LoadedLog& a, const LoadedLog& b,
                                std::int64_t epoch_unix_ns);

}  // namespace skysim::fuzz
