#pragma once
// Per-model sub-fingerprints: the kernel's rolling hash, kept once per group of event kinds, so a
// changed trajectory says which model changed ("queue-server", "source", "fdb", "go", ...),
// and the events each kind executed, so a run says where its events go.
// A kind's group is its interned name up to the first '.' ("go.gc" -> "go"; "timeline" ->
// "timeline"). It is an EventObserver: the kernel's hot path is unchanged, and only runs that
// attach one (scenario runs) pay for it.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/simulation.hpp"

namespace sim {

class GroupFingerprints final : public EventObserver {
 public:
  explicit GroupFingerprints(Simulation& sim) : sim_(sim) { sim.add_observer(this); }

  void on_event(Time now, Kind kind, ActorId actor) override {
    if (kind >= group_of_kind_.size()) learn_kinds();
    std::uint64_t& f = hashes_[group_of_kind_[kind]];
    // The same mixing as Simulation::record, over this group's events only.
    std::uint64_t h = f ^ static_cast<std::uint64_t>(now);
    h *= 0x9E3779B97F4A7C15ULL;
    h ^= (static_cast<std::uint64_t>(kind) << 32) | actor;
    h *= 0xBF58476D1CE4E5B9ULL;
    f = h ^ (h >> 31);
    ++kind_events_[kind];
  }

  struct Group {
    std::string name;
    std::uint64_t fingerprint = 0;
    std::uint64_t events = 0;
  };
  // Groups that executed at least one event, by name.
  std::vector<Group> groups() const {
    std::vector<std::uint64_t> counts(names_.size(), 0);
    for (std::size_t k = 0; k < kind_events_.size(); ++k)
      counts[group_of_kind_[k]] += kind_events_[k];
    std::map<std::string, Group> by_name;
    for (std::size_t g = 0; g < names_.size(); ++g) {
      if (counts[g] > 0) by_name[names_[g]] = Group{names_[g], hashes_[g], counts[g]};
    }
    std::vector<Group> out;
    for (auto& [name, g] : by_name) out.push_back(g);
    return out;
  }
  // Events per kind that executed at least one, by kind name ("go.goroutine", "source.arrival").
  std::vector<std::pair<std::string, std::uint64_t>> kind_events() const {
    std::map<std::string, std::uint64_t> by_name;
    for (std::size_t k = 0; k < kind_events_.size(); ++k) {
      if (kind_events_[k] > 0) by_name[sim_.kind_name(static_cast<Kind>(k))] += kind_events_[k];
    }
    return {by_name.begin(), by_name.end()};
  }

 private:
  static constexpr std::uint64_t kStart = 0x5EED5EED5EED5EEDULL;

  void learn_kinds() {
    for (std::size_t k = group_of_kind_.size(); k < sim_.kind_count(); ++k) {
      const std::string& name = sim_.kind_name(static_cast<Kind>(k));
      std::string group = name.substr(0, name.find('.'));
      std::size_t g = 0;
      while (g < names_.size() && names_[g] != group) ++g;
      if (g == names_.size()) {
        names_.push_back(group);
        hashes_.push_back(kStart);
      }
      group_of_kind_.push_back(static_cast<std::uint32_t>(g));
      kind_events_.push_back(0);
    }
  }

  Simulation& sim_;
  std::vector<std::uint32_t> group_of_kind_;
  std::vector<std::string> names_;
  std::vector<std::uint64_t> hashes_;
  std::vector<std::uint64_t> kind_events_;  // by Kind
};

}  // namespace sim
