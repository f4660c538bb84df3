#include "models/fanout/hot_key_nodes.hpp"

#include <stdexcept>
#include <string>

namespace fanout {

void HotKeyNodesConfig::validate() const {
  if (hold <= 0 || coalesce_interval <= 0) {
    throw std::invalid_argument("fanout: hotkey hold and coalesce_interval must be > 0");
  }
  hotkey::HotKeyDetector<std::uint32_t> probe(detector);  // throws on a bad detector config
}

HotKeyNodes::HotKeyNodes(sim::Simulation& sim, scylla::ScyllaCluster& cluster,
                         std::uint32_t keys, HotKeyNodesConfig cfg,
                         std::string_view coordinator_stream)
    : sim_(sim),
      cluster_(cluster),
      cfg_((cfg.validate(), cfg)),
      coord_rng_(sim.stream(coordinator_stream)),
      version_(keys, 0) {
  for (std::uint32_t n = 0; n < cluster.config().nodes; ++n) {
    nodes_.push_back(std::make_unique<Node>(cfg_.detector));
  }
  actor_id = sim.new_actor_id();
  kind = sim.intern_kind("fanout.coalesce_flush");
}

HotKeyNodes::Route HotKeyNodes::route(std::uint32_t key) {
  const std::uint32_t rf = cluster_.rf();
  Route r;
  r.via = rf == 1 ? 0 : static_cast<std::uint32_t>(coord_rng_.uniform_int(0, rf - 1));
  r.node = cluster_.node_of(cluster_.replicas(key)[r.via]);
  Node& node = *nodes_[r.node];
  const sim::Time now = sim_.now();
  const hotkey::Observation o = node.detector.observe(key);
  if (o.hot) {
    node.hot_until[key] = now + cfg_.hold;
    first_flag_.emplace(key, now);
  }
  auto it = node.hot_until.find(key);
  if (it != node.hot_until.end()) {
    if (it->second > now) {
      r.hot = true;
    } else {
      node.hot_until.erase(it);  // the mark lapsed: no hot sample within `hold`
    }
  }
  return r;
}

void HotKeyNodes::background_row(std::uint32_t key) {
  const Route r = route(key);
  if (!r.hot) {
    ++rows_direct_;
    applied(key);
    cluster_.background_write(key);
    return;
  }
  nodes_[r.node]->buffer[key].push_back(sim_.now());
  ++rows_coalesced_;
  if (!armed_) {
    armed_ = true;
    sim_.schedule_in(cfg_.coalesce_interval, *this);
  }
}

// Every node writes each key it buffered as one write of all its rows; nodes and keys in
// order (ordered maps), so the flush order is the same on every run.
void HotKeyNodes::on_event(sim::Simulation& sim) {
  armed_ = false;
  const sim::Time now = sim.now();
  for (auto& node : nodes_) {
    for (auto& [key, arrivals] : node->buffer) {
      for (sim::Time t : arrivals) {
        coalesce_delay_.record(now - t);
      }
      const auto rows = static_cast<std::uint32_t>(arrivals.size());
      ++batches_;
      applied(key, rows);
      cluster_.background_write(key, rows);
    }
    node->buffer.clear();
  }
}

void HotKeyNodes::cache_hit(std::uint32_t key) {
  ++cache_hits_;
  auto it = cached_version_.find(key);
  const std::uint32_t then = it == cached_version_.end() ? version_.at(key) : it->second;
  if (version_.at(key) != then) {
    ++stale_hits_;
    stale_rows_ += version_.at(key) - then;
  }
}

std::uint64_t HotKeyNodes::hot_signals() const {
  std::uint64_t n = 0;
  for (const auto& node : nodes_) n += node->detector.hot_signals();
  return n;
}

}  // namespace fanout
