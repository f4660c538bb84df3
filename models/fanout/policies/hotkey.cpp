// hotkey: hot-key detection per Scylla node, with client caching on reads and per-node write
// coalescing (issue 23's "hot-key detection with client caching, on reads and writes, per
// node"). Posts are fanned out to every follower as under full; what changes is how requests
// reach the cluster (models/fanout/hot_key_nodes.hpp): the client picks each request's
// coordinator replica, that node's components/hotkey detector flags the keys it sees most, a
// hot reply lets the client serve the key from its cache for hotkey_ttl, and the nodes buffer
// hot keys' background rows and write them as one write per coalesce_interval. Costs: stale
// cached reads (`fanout.hotkey_stale_reads`), each coalesced row's wait
// (`fanout.hotkey_coalesce_delay_*`); gain: fewer operations -- and, for batches longer than a
// trim batch, fewer trims -- on the hot shards (`scylla.max_shard_ops`).
#include "models/fanout/policies/policy.hpp"

namespace fanout {
namespace {

class HotKey final : public EveryFollower {
 public:
  FanoutPolicy id() const override { return FanoutPolicy::HotKey; }
  bool per_node_hot_keys() const override { return true; }
};

}  // namespace

std::unique_ptr<Policy> make_hotkey_policy(const PolicyContext&) {
  return std::make_unique<HotKey>();
}

}  // namespace fanout
