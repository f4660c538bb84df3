#pragma once
// Policy hotkey (policies/hotkey.cpp, docs/fanout.md "Policies"): hot-key detection per Scylla
// node, on reads and writes. The client (the fan-out service) picks each request's coordinator
// itself -- a token-aware driver's choice, uniform over the key's RF replicas, from its own
// stream `fanout/coordinator` -- so it is known which node sees which request. Every node runs
// the production detector, components/hotkey's HotKeyDetector (Pelikan's rule, driven
// unchanged: every 100th request sampled, a key hot at >= 1 % of the last 10,000 samples), over
// the requests it coordinates: fan-out writes, the hyper-followers' background rows, reads.
// A sampled request of a hot key marks it hot at that node for `hold` (each hot sample renews
// it) and the reply says so (Tejo's piggy-backed signal, domain.md §9.1). Then:
//   reads  - the client keeps a hot reply for hotkey_ttl (components/hotkey's
//            HotKeyClientCache) and serves that key from it; a hit is *stale* when rows were
//            written to the partition after the cached copy was fetched (counted here);
//   writes - a background row to a key hot at its coordinator node is buffered at that node and
//            written with the node's other buffered rows for the key as ONE write per
//            `coalesce_interval` (the flush tick): the replicas see one op and at most one trim
//            per batch. Its cost is each row's wait in the buffer (`coalesce_delay`).
// Assumption: the celebrity's own fan-out write to a hot key is sent at once (one row per post
// per follower; buffering it would hold its page for up to an interval to save one op).
// Not seen by the detectors: the cluster's fluid fleet background (it has no requests), which
// would dilute a hot key's share at its node (docs/fanout.md, "Not done / limits").
#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "components/hotkey/hotkey_detector.hpp"
#include "models/scylla/cluster.hpp"
#include "sim/histogram.hpp"
#include "sim/simulation.hpp"

namespace fanout {

struct HotKeyNodesConfig {
  hotkey::HotKeyConfig detector;  // per node; Pelikan's defaults (domain.md §9.1)
  // How long a key stays hot at a node after its last hot sample (assumption: the client
  // cache's TTL, 1 s -- the same horizon on both sides of the reply).
  sim::Duration hold = sim::kSecond;
  // One coalesced write per hot key per node per interval (assumption: 1 s, the TTL; a batch
  // must exceed trim_slack_rows to save a trim, docs/fanout.md).
  sim::Duration coalesce_interval = sim::kSecond;
  void validate() const;
};

class HotKeyNodes final : public sim::Handler {
 public:
  // `coordinator_stream`: the named stream of the client's coordinator choice (the fanout
  // kind's "fanout/coordinator"; a scylla service's own under its path).
  HotKeyNodes(sim::Simulation& sim, scylla::ScyllaCluster& cluster, std::uint32_t keys,
              HotKeyNodesConfig cfg, std::string_view coordinator_stream = "fanout/coordinator");
  HotKeyNodes(const HotKeyNodes&) = delete;
  HotKeyNodes& operator=(const HotKeyNodes&) = delete;

  // The client's choice of coordinator for a request on `key`, seen by that node's detector.
  struct Route {
    std::uint32_t via = 0;  // replica index, for ScyllaCluster::write/read
    std::uint32_t node = 0;
    bool hot = false;  // what the reply tells the client
  };
  Route route(std::uint32_t key);
  // A hyper-follower's background row: routed, then buffered at its node when the key is hot
  // there, else written at once (ScyllaCluster::background_write).
  void background_row(std::uint32_t key);
  // Rows that reached `key`'s partition (every write the service makes to it), for staleness.
  void applied(std::uint32_t key, std::uint32_t rows = 1) { version_.at(key) += rows; }
  // The client cached a hot reply of `key` now; a later hit is stale if rows were applied since.
  void cached(std::uint32_t key) { cached_version_[key] = version_.at(key); }
  void cache_hit(std::uint32_t key);

  void on_event(sim::Simulation& sim) override;  // the flush tick

  // Costs (docs/fanout.md "Policies": `fanout.hotkey_*`).
  std::uint64_t rows_coalesced() const { return rows_coalesced_; }  // rows that went through a buffer
  std::uint64_t batches() const { return batches_; }                // coalesced writes made
  std::uint64_t rows_direct() const { return rows_direct_; }        // background rows written at once
  const sim::Histogram& coalesce_delay() const { return coalesce_delay_; }  // per buffered row
  std::uint64_t cache_hits() const { return cache_hits_; }
  std::uint64_t stale_hits() const { return stale_hits_; }
  std::uint64_t stale_rows() const { return stale_rows_; }  // rows missed, summed over stale hits
  // Keys flagged hot at some node, with the first instant.
  const std::map<std::uint32_t, sim::Time>& flagged() const { return first_flag_; }
  // Of those, how many `is` accepts, and the mean instant of their first flag (0: none).
  template <class Pred>
  std::size_t flagged_count(Pred is) const {
    std::size_t n = 0;
    for (const auto& [key, at] : first_flag_) n += is(key) ? 1 : 0;
    return n;
  }
  template <class Pred>
  double mean_first_flag(Pred is) const {
    double sum = 0;
    std::size_t n = 0;
    for (const auto& [key, at] : first_flag_) {
      if (!is(key)) continue;
      sum += static_cast<double>(at);
      ++n;
    }
    return n ? sum / static_cast<double>(n) : 0.0;
  }
  std::uint64_t hot_signals() const;  // over every node's detector
  std::uint32_t nodes() const { return static_cast<std::uint32_t>(nodes_.size()); }

 private:
  struct Node {
    explicit Node(const hotkey::HotKeyConfig& c) : detector(c) {}
    hotkey::HotKeyDetector<std::uint32_t> detector;
    std::map<std::uint32_t, sim::Time> hot_until;        // key -> end of its hot mark
    std::map<std::uint32_t, std::vector<sim::Time>> buffer;  // key -> arrival of each row
  };

  sim::Simulation& sim_;
  scylla::ScyllaCluster& cluster_;
  HotKeyNodesConfig cfg_;
  sim::Rng& coord_rng_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::uint32_t> version_;  // rows applied per partition
  std::map<std::uint32_t, std::uint32_t> cached_version_;
  std::map<std::uint32_t, sim::Time> first_flag_;
  bool armed_ = false;
  std::uint64_t rows_coalesced_ = 0;
  std::uint64_t batches_ = 0;
  std::uint64_t rows_direct_ = 0;
  std::uint64_t cache_hits_ = 0;
  std::uint64_t stale_hits_ = 0;
  std::uint64_t stale_rows_ = 0;
  sim::Histogram coalesce_delay_;
};

}  // namespace fanout
