#pragma once
// A fan-out policy: what a post write does and what a timeline read does (docs/fanout.md,
// "Policies"). The fan-out service (fanout_service.hpp) runs the mechanism -- pages of 10,000
// followers, 1,000 writes in flight, the lossy page filter of components/lossy, the read
// fan-in -- and asks its policy only these questions, so each policy is one small file here:
//   full.cpp, lossy.cpp, on_read.cpp, lossy_on_read.cpp, per_shard.cpp, split.cpp,
//   shard_queue.cpp, hyper_detect.cpp (detect_block, detect_limit), shuffle_retry.cpp,
//   hotkey.cpp.
// A policy holds no simulation state and draws nothing: the per-page r of the lossy filter
// stays the service's named stream, so choosing a policy never moves another stream.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/fanout/split_timelines.hpp"
#include "models/social/follow_graph.hpp"
#include "sim/time.hpp"

namespace scylla {
class ScyllaCluster;
struct ScyllaConfig;
}

namespace fanout {

enum class FanoutPolicy {
  Full,
  Lossy,
  OnRead,
  LossyOnRead,
  PerShard,
  Split,
  ShardQueue,
  DetectBlock,
  DetectLimit,
  ShuffleRetry,
  HotKey
};
// "full", "lossy", "on_read", "lossy_on_read", "per_shard", "split", "shard_queue",
// "detect_block", "detect_limit", "shuffle_retry", "hotkey"; anything else throws std::invalid_argument naming the valid
// choices.
FanoutPolicy parse_fanout_policy(std::string_view s);
std::string_view policy_name(FanoutPolicy p);
// Whether the policy needs FanoutConfig::on_read_threshold >= 1.
bool policy_uses_on_read_threshold(FanoutPolicy p);

// What a policy may consult: the follow graph and where authors' recent-post lists live.
struct PolicyContext {
  const social::FollowGraph& graph;
  std::uint32_t on_read_threshold = 0;  // followers at and above which an author is merged
  // Partition of author a's recent-post list: lists_base + a (fanout_service.hpp layout).
  std::uint32_t lists_base = 0;
  std::uint32_t read_page_rows = 50;  // rows one timeline page needs
  scylla::ScyllaCluster* cluster = nullptr;  // where partitions live (replicas), for per_shard
  std::uint32_t split_follows = 1'000;       // split: follows per sub-timeline
};

// split's layout (split_parts, split_extra_partitions, SplitTimelines):
// models/fanout/split_timelines.hpp.

// One partition a timeline read fetches and the rows it scans there.
struct ReadKey {
  std::uint32_t partition = 0;
  std::uint32_t rows = 0;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual FanoutPolicy id() const = 0;

  // Post write. True: a post by `author` writes only the author's recent-post list and its
  // readers merge it at read time (§8.5); false: it is fanned out into every follower's
  // timeline, page by page.
  virtual bool merged_at_read(std::uint32_t author) const = 0;
  // Post write of a merged author: the partitions its post is written to, in order (default:
  // the author's recent-post list, lists_base + author).
  virtual void merged_write_keys(std::uint32_t author, std::vector<std::uint32_t>& keys) const;
  // Post write: each fanned-out page goes through the lossy page filter (components/lossy,
  // §8.3) -- one r per page, a follower kept iff r <= its loss factor -- and the high-follow
  // cache it reads is kept fresh by the 30 s refresher.
  virtual bool thins_pages() const = 0;

  // Timeline write: the partition of `follower`'s timeline that a post by `author` goes into
  // (default: the follower's one partition; split: one of its sub-timelines).
  virtual std::uint32_t timeline_partition(std::uint32_t follower, std::uint32_t) const {
    return follower;
  }
  // The partitions `user`'s timeline is stored in, for warming them (default: just `user`).
  virtual void timeline_partitions(std::uint32_t user, std::vector<std::uint32_t>& out) const {
    out.push_back(user);
  }
  // Post write: the kept writes of each page go into the fan-out queue partitioned by shard
  // (models/fanout/shard_queue.hpp) and the next page is fetched at once, instead of 1,000 in
  // flight and the page waiting for its slowest write.
  virtual bool queues_by_shard() const { return false; }
  // Every timeline write passes the hyper-follower detector (models/fanout/hyper_detector.hpp);
  // once it flags an account, that account's writes are dropped (block) or rate-limited.
  virtual bool gates_writes() const { return false; }
  // Every request goes to a coordinator the client picks, each node detects hot keys from
  // what it sees, hot reads are served from the client's cache and hot background rows are
  // coalesced per node (models/fanout/hot_key_nodes.hpp).
  virtual bool per_node_hot_keys() const { return false; }

  // Timeline read: the partitions one read of `reader`'s timeline fetches, appended to `keys`
  // after the reader's own timeline partition (which the service adds first).
  virtual void read_keys(std::uint32_t reader, std::vector<ReadKey>& keys) const = 0;

 protected:
  explicit Policy(std::uint32_t lists_base = 0) : lists_base_(lists_base) {}
  std::uint32_t lists_base_;
};

// What full and the policies that change only how its writes are made share: every post fanned
// out to every follower, unthinned, and a read of the reader's own timeline only.
class EveryFollower : public Policy {
 public:
  bool merged_at_read(std::uint32_t) const override { return false; }
  bool thins_pages() const override { return false; }
  void read_keys(std::uint32_t, std::vector<ReadKey>&) const override {}

 protected:
  using Policy::Policy;
};

std::unique_ptr<Policy> make_policy(FanoutPolicy p, const PolicyContext& ctx);

// One factory per policy file.
std::unique_ptr<Policy> make_full_policy(const PolicyContext& ctx);
std::unique_ptr<Policy> make_lossy_policy(const PolicyContext& ctx);
std::unique_ptr<Policy> make_on_read_policy(const PolicyContext& ctx);
std::unique_ptr<Policy> make_lossy_on_read_policy(const PolicyContext& ctx);
std::unique_ptr<Policy> make_per_shard_policy(const PolicyContext& ctx);
std::unique_ptr<Policy> make_split_policy(const PolicyContext& ctx);
std::unique_ptr<Policy> make_shard_queue_policy(const PolicyContext& ctx);
std::unique_ptr<Policy> make_detect_policy(FanoutPolicy p, const PolicyContext& ctx);
std::unique_ptr<Policy> make_shuffle_retry_policy(const PolicyContext& ctx);
std::unique_ptr<Policy> make_hotkey_policy(const PolicyContext& ctx);

// shuffle_retry lives in the cluster's placement and read path: the Scylla configuration a
// policy needs, from the one given (unchanged for every other policy; shuffle_retry.cpp).
void configure_cluster_for(FanoutPolicy p, sim::Duration retry_after, scylla::ScyllaConfig& sc);
// "" or why `sc` cannot run policy p (shuffle_retry without its placement or retry).
std::string cluster_mismatch(FanoutPolicy p, const scylla::ScyllaConfig& sc);

}  // namespace fanout
