// per_shard: write once per shard that holds a follower, filter at read (the fan-out write-up's
// discussion). An author with >= on_read_threshold followers is not fanned out into 2M
// timelines: its post is written once into each shard's "inbox" -- a partition whose first
// replica is that shard -- for every shard that is the first replica of at least one
// follower's timeline. A reader's timeline read fetches its own timeline plus its shard's inbox,
// and filters there: the inbox holds the posts of every such author followed by someone on the
// shard, so to find a page of the authors it follows the reader scans
//   read_page_rows x (inbox authors of its shard) / (of them, the ones it follows)
// rows (assumption: posts interleaved evenly). Costs: reads per timeline load (+1 inbox read),
// rows scanned at read (the filter), and one write per shard instead of one per follower.
//
// Approximations (docs/fanout.md): the inbox of shard s is the timeline partition of the
// lowest-numbered user whose first replica is s (the cluster models load per partition, so
// sharing it costs only that user's reads an extra neighbour); a follower's "shard" is its
// timeline's first replica, the inbox's other RF-1 replicas may differ from the follower's.
#include <map>
#include <stdexcept>

#include "models/fanout/policies/policy.hpp"
#include "models/scylla/cluster.hpp"

namespace fanout {
namespace {

class PerShard final : public Policy {
 public:
  explicit PerShard(const PolicyContext& ctx)
      : Policy(ctx.lists_base),
        graph_(ctx.graph),
        cluster_(*ctx.cluster),
        threshold_(ctx.on_read_threshold),
        page_rows_(ctx.read_page_rows) {
    const std::uint32_t shards = cluster_.config().total_shards();
    inbox_.assign(shards, kNone);
    inbox_authors_.assign(shards, 0);
    std::uint32_t found = 0;
    for (social::UserId u = 0; u < graph_.users() && found < shards; ++u) {
      const std::uint32_t s = first_replica(u);
      if (inbox_[s] == kNone) {
        inbox_[s] = u;
        ++found;
      }
    }
    // Per merged author (ascending id): the inboxes its post is written to, in shard order.
    std::vector<std::uint8_t> holds(shards, 0);
    for (social::UserId a = 0; a < graph_.users(); ++a) {
      if (!merged_at_read(a)) {
        continue;
      }
      std::fill(holds.begin(), holds.end(), 0);
      for (social::UserId f : graph_.followers(a)) {
        holds[first_replica(f)] = 1;
      }
      std::vector<std::uint32_t>& keys = writes_[a];
      for (std::uint32_t s = 0; s < shards; ++s) {
        if (holds[s] == 0) {
          continue;
        }
        if (inbox_[s] == kNone) {
          throw std::invalid_argument("fanout: per_shard: shard " + std::to_string(s) +
                                      " holds a follower but no user partition to host its inbox");
        }
        keys.push_back(inbox_[s]);
        ++inbox_authors_[s];
      }
    }
  }

  FanoutPolicy id() const override { return FanoutPolicy::PerShard; }
  bool merged_at_read(std::uint32_t author) const override {
    return graph_.follower_count(author) >= threshold_;
  }
  bool thins_pages() const override { return false; }
  void merged_write_keys(std::uint32_t author, std::vector<std::uint32_t>& keys) const override {
    const auto& w = writes_.at(author);
    keys.insert(keys.end(), w.begin(), w.end());
  }
  void read_keys(std::uint32_t reader, std::vector<ReadKey>& keys) const override {
    std::uint32_t followed = 0;
    for (social::UserId f : graph_.follows(reader)) {
      followed += merged_at_read(f) ? 1 : 0;
    }
    if (followed == 0) {
      return;
    }
    const std::uint32_t s = first_replica(reader);
    // Scan until a page of the followed authors' rows is found (rounded up).
    const std::uint64_t rows =
        (static_cast<std::uint64_t>(page_rows_) * inbox_authors_[s] + followed - 1) / followed;
    keys.push_back({inbox_[s], static_cast<std::uint32_t>(rows)});
  }

 private:
  static constexpr std::uint32_t kNone = ~0u;
  std::uint32_t first_replica(social::UserId u) const { return cluster_.replicas(u)[0]; }

  const social::FollowGraph& graph_;
  scylla::ScyllaCluster& cluster_;
  std::uint32_t threshold_;
  std::uint32_t page_rows_;
  std::vector<std::uint32_t> inbox_;          // per shard: the partition hosting its inbox
  std::vector<std::uint32_t> inbox_authors_;  // per shard: merged authors written there
  std::map<std::uint32_t, std::vector<std::uint32_t>> writes_;  // per merged author
};

}  // namespace

std::unique_ptr<Policy> make_per_shard_policy(const PolicyContext& ctx) {
  if (ctx.cluster == nullptr) {
    throw std::invalid_argument("fanout: per_shard needs the cluster (its replicas)");
  }
  return std::make_unique<PerShard>(ctx);
}

}  // namespace fanout
