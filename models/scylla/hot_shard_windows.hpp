#pragma once
// Hot shards, counted as docs/fanout.md defines them: every `window`, the shards at least
// hot_utilisation busy over it (ScyllaCluster::utilisations) are hot; the counts are the most
// in one window, the mean per window, and the shards hot in at least one. A scheduled event,
// not a metrics callback, so sampling never changes when the lazy background is generated.
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "models/scylla/cluster.hpp"
#include "sim/simulation.hpp"

namespace scylla {

class HotShardWindows final : public sim::Handler {
 public:
  // `kind`: the event kind its windows are fingerprinted under.
  HotShardWindows(sim::Simulation& sim, ScyllaCluster& cluster, sim::Duration window,
                  std::string_view kind)
      : cluster_(cluster), window_(window), ever_(cluster.config().total_shards(), 0) {
    actor_id = sim.new_actor_id();
    this->kind = sim.intern_kind(kind);
  }
  // The first window starts now.
  void start(sim::Simulation& sim) {
    cluster_.reset_window(sim.now());
    sim.schedule_in(window_, *this);
  }

  void on_event(sim::Simulation& sim) override {
    const std::vector<double> u = cluster_.utilisations(sim.now());
    std::uint32_t hot = 0;
    for (std::size_t s = 0; s < u.size(); ++s) {
      if (u[s] >= cluster_.config().hot_utilisation) {
        ++hot;
        ever_[s] = 1;
      }
    }
    ++windows_;
    sum_ += hot;
    max_ = std::max(max_, hot);
    cluster_.reset_window(sim.now());
    sim.schedule_in(window_, *this);
  }

  std::uint32_t max() const { return max_; }
  double mean() const { return windows_ ? double(sum_) / double(windows_) : 0.0; }
  std::uint32_t distinct() const {
    return static_cast<std::uint32_t>(std::count(ever_.begin(), ever_.end(), 1));
  }

 private:
  ScyllaCluster& cluster_;
  sim::Duration window_;
  std::vector<std::uint8_t> ever_;  // per shard: hot in at least one window
  std::uint64_t windows_ = 0;
  std::uint64_t sum_ = 0;
  std::uint32_t max_ = 0;
};

}  // namespace scylla
