#pragma once
// Bluesky's Following-feed fan-out (domain.md §8.1-§8.3): a post by an author walks the
// author's followers page by page (10,000 per page); each page is written with 1,000 writes in
// flight, and the next page is fetched only after the slowest write of the current one. What a
// post write and a timeline read do is the policy's (models/fanout/policies/, one file each):
//   full          - every follower's timeline is written;
//   lossy         - one r in [0,1) per page, a follower is skipped iff its loss_factor < r (§8.3);
//   on_read       - authors with >= on_read_threshold followers are not fanned out at all;
//                   readers merge those authors' recent posts at read time (§8.5);
//   lossy_on_read - both: on_read for those authors, lossy pages for every other post.
// The timeline read path fetches a page of the reader's own timeline plus the partitions the
// policy adds (on_read: each followed celebrity's list), optionally through a hot-key client
// cache (§9).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "components/hotkey/hot_key_client_cache.hpp"
#include "components/hotkey/hotkey_detector.hpp"
#include "components/lossy/high_follow_cache.hpp"
#include "components/lossy/page_filter.hpp"
#include "models/fanout/follow_count_store.hpp"
#include "models/fanout/hot_key_nodes.hpp"
#include "models/fanout/hyper_detector.hpp"
#include "models/fanout/delivery_book.hpp"
#include "models/fanout/keep_bound.hpp"
#include "models/fanout/policies/policy.hpp"
#include "models/fanout/post_route.hpp"
#include "models/fanout/shard_queue.hpp"
#include "models/scylla/cluster.hpp"
#include "models/social/follow_graph.hpp"
#include "sim/histogram.hpp"
#include "sim/simulation.hpp"

namespace fanout {

class BackgroundPosts;

struct FanoutConfig {
  std::uint32_t page_size = 10'000;   // domain.md §8.2
  std::uint32_t concurrency = 1'000;  // domain.md §8.2
  FanoutPolicy policy = FanoutPolicy::Full;
  std::uint64_t reasonable_limit = 2'000;             // domain.md §8.3
  sim::Duration cache_refresh = 30 * sim::kSecond;    // domain.md §8.3
  sim::Duration redis_rtt = sim::kMillisecond;        // assumption
  // Fetching one page of follower ids from the graph store: assumption 1 ms.
  sim::Duration page_fetch = sim::kMillisecond;
  // Hybrid fan-out-on-read (§8.5), policies on_read and lossy_on_read: authors with at least
  // this many followers are not fanned out. Must be >= 1 there; ignored by the other policies.
  std::uint32_t on_read_threshold = 0;
  // Read path: rows per timeline page (assumption: 50, a typical API page).
  std::uint32_t read_page_rows = 50;
  bool hotkey_cache = false;
  hotkey::HotKeyConfig hotkey;                         // Pelikan defaults, domain.md §9.1
  sim::Duration hotkey_ttl = sim::kSecond;             // assumption (§9.2: not published)
  // hotkey policy: one coalesced write per hot key per node per interval (assumption, 1 s;
  // hot_key_nodes.hpp). The nodes' detectors use `hotkey`, their hot marks last hotkey_ttl.
  sim::Duration coalesce_interval = sim::kSecond;
  // split: follows per sub-timeline (the write-up's discussion: "one per 1,000 follows").
  std::uint32_t split_follows = 1'000;
  ShardQueueConfig shard_queue;  // shard_queue policy
  DetectorConfig detector;       // detect_block / detect_limit (`block` follows the policy)
  // shuffle_retry: a read's retry to the set's remaining replica after this long (assumption:
  // 10 ms, between the calm read P99 ~2 ms and a hot shard's hundreds of ms).
  sim::Duration retry_after = 10 * sim::kMillisecond;

  void validate() const;
};

// What one post's fan-out did.
struct PostReport {
  std::uint32_t author = 0;
  sim::Duration duration = 0;  // from post to last write of last page
  std::uint32_t pages = 0;
  std::uint64_t followers = 0;
  std::uint64_t written = 0;
  bool on_read = false;        // skipped: the author's posts are merged at read time; duration
                               // is then the one write of the author's recent-post list
};

struct ReadReport {
  std::uint32_t reader = 0;
  sim::Duration latency = 0;
  std::uint32_t db_reads = 0;      // partitions read from Scylla
  std::uint32_t rows_read = 0;     // rows those reads scanned (per_shard: filtered at read)
  std::uint32_t cache_hits = 0;    // celebrity lists served by the hot-key client cache
  std::uint32_t merged = 0;        // partitions merged into the reader's own (lists, parts)
};

class FanoutService final : public PostRoute {
 public:
  FanoutService(sim::Simulation& sim, scylla::ScyllaCluster& cluster,
                const social::FollowGraph& graph, FanoutConfig cfg);
  ~FanoutService() override;
  FanoutService(const FanoutService&) = delete;
  FanoutService& operator=(const FanoutService&) = delete;

  // Publishes every account above reasonable_limit to the sorted-set store and starts the
  // 30 s refresher (lossy policy only).
  void start();
  void stop();

  // Timeline partitions of users are [0, users); authors' recent-post lists [users, 2*users).
  // Under split, the sub-timelines after those (policies/split.cpp).
  static std::uint32_t partitions_needed(const social::FollowGraph& g) { return 2 * g.users(); }
  static std::uint32_t partitions_needed(const social::FollowGraph& g, const FanoutConfig& cfg) {
    return 2 * g.users() +
           (cfg.policy == FanoutPolicy::Split ? split_extra_partitions(g, cfg.split_follows) : 0);
  }
  std::uint32_t posts_partition(std::uint32_t author) const { return graph_.users() + author; }

  void post(std::uint32_t author, std::function<void(const PostReport&)> done = {});
  void read_timeline(std::uint32_t reader, std::function<void(const ReadReport&)> done = {});

  // The rest of the fleet's posts into hyper-following accounts' timelines: every account
  // that one following >= min_follows follows posts at posts_per_followed_s, and each post is
  // fanned out page by page through page_filter() under the lossy policy (background_posts.hpp),
  // so a hyper-follower is offered follows x posts_per_followed_s rows/s and gets what the
  // filter keeps. Once per service.
  void install_hyperfollower_background(std::uint32_t min_follows, double posts_per_followed_s);
  const BackgroundPosts* background() const { return background_.get(); }

  // The lossy policy's page decision: by default the production component over follow_cache();
  // a test may inject another (it must outlive the service) before start().
  void set_page_filter(const lossy::PageFilter& f) { filter_ = &f; }
  const lossy::PageFilter& page_filter() const { return *filter_; }
  // One page of followers through the policy: under lossy one r drawn from `page_r` just before
  // writing it and the filter's kept users appended to `out`; else all of them.
  void filter_page(const social::UserId* page, std::size_t n, sim::Rng& page_r,
                   std::vector<social::UserId>& out) const override;
  // The rest of PostRoute, for the hyper-followers' background: the policy's partitions and
  // its filter's keep probability (1 unless it thins pages); a row goes to
  // write_background_row().
  double keep_probability(social::UserId u) const override;
  void timeline_partitions(social::UserId u, std::vector<std::uint32_t>& out) const override;
  std::uint32_t timeline_partition(social::UserId u, social::UserId author) const override;
  void write_row(std::uint32_t partition) override { write_background_row(partition); }
  // "" or a user the filter kept less often than its loss factor allows (keep_bound.hpp).
  std::string keep_bound_error() const { return keep_bound_.check(); }

  const sim::Histogram& page_duration() const { return page_duration_; }
  const sim::Histogram& write_latency() const { return write_latency_; }  // fan-out's own writes
  const sim::Histogram& post_duration() const { return post_duration_; }
  const sim::Histogram& read_latency() const { return read_latency_; }
  const sim::Histogram& read_db_reads() const { return read_db_reads_; }
  // Every page fanned out so far: when its writes started and how long until the last returned
  // (the first kPageLogMax pages only, so a long scenario cannot grow it without bound).
  struct PageRecord {
    sim::Time start = 0;
    sim::Duration duration = 0;
  };
  static constexpr std::size_t kPageLogMax = 1'000'000;
  const std::vector<PageRecord>& page_log() const { return page_log_; }
  // Per user: fan-out writes addressed to it and writes actually made.
  std::uint64_t offered(std::uint32_t u) const { return book_.offered(u); }
  std::uint64_t delivered(std::uint32_t u) const { return book_.delivered(u); }
  // "" or a user delivered more writes than addressed (delivery_book.hpp; O(1) when none is).
  std::string delivery_error() const { return book_.error(); }
  // Timeline rows written by fan-outs, and recent-post-list writes of on-read authors.
  std::uint64_t timeline_writes() const { return timeline_writes_; }
  std::uint64_t writes_offered() const { return writes_offered_; }  // before the lossy filter
  std::uint64_t list_writes() const { return list_writes_; }
  std::uint64_t write_timeouts() const { return write_timeouts_; }  // fan-out writes that failed
  FollowCountStore& store() { return store_; }
  const lossy::HighFollowCache& follow_cache() const { return cache_; }
  bool is_on_read_author(std::uint32_t u) const;
  const FanoutConfig& config() const { return cfg_; }
  const Policy& policy() const { return *policy_; }
  // shard_queue: the queue (null under the other policies); detect_*: the detector.
  const ShardQueue* shard_queue() const { return shard_queue_.get(); }
  const HyperFollowerDetector* hyper_detector() const { return hyper_detector_.get(); }
  // hotkey: the per-node detectors, write buffers and the staleness of cached reads.
  const HotKeyNodes* hot_key_nodes() const { return hot_nodes_.get(); }
  // A hyper-follower's background row into `partition` (background posts, follow growth):
  // under hotkey through its coordinator node (detected, maybe coalesced), else written at once.
  void write_background_row(std::uint32_t partition);
  // The process track of this service in a trace (sim/trace.hpp), e.g. its host path.
  void set_trace_name(std::string name) { trace_name_ = std::move(name); }

 private:
  class Job;
  class ReadJob;
  class ListWrite;
  friend class Job;
  friend class ReadJob;
  friend class ListWrite;

  sim::Simulation& sim_;
  std::string trace_name_ = "fanout";
  scylla::ScyllaCluster& cluster_;
  const social::FollowGraph& graph_;
  FanoutConfig cfg_;
  std::unique_ptr<Policy> policy_;
  sim::Rng& page_rng_;  // the per-page r of the lossy filter
  FollowCountStore store_;
  lossy::HighFollowCache cache_;
  HighFollowRefresher refresher_;
  lossy::CacheFilter cache_filter_;
  const lossy::PageFilter* filter_;
  std::unique_ptr<BackgroundPosts> background_;
  std::unique_ptr<hotkey::HotKeyDetector<std::uint32_t>> detector_;
  std::unique_ptr<hotkey::HotKeyClientCache<std::uint32_t>> client_cache_;
  std::unique_ptr<ShardQueue> shard_queue_;
  std::unique_ptr<HyperFollowerDetector> hyper_detector_;
  std::unique_ptr<HotKeyNodes> hot_nodes_;
  std::vector<std::unique_ptr<Job>> jobs_;
  std::vector<std::unique_ptr<ReadJob>> reads_;
  std::vector<std::unique_ptr<ListWrite>> list_writes_pool_;
  std::uint64_t timeline_writes_ = 0;
  std::uint64_t writes_offered_ = 0;
  std::uint64_t list_writes_ = 0;
  std::uint64_t write_timeouts_ = 0;
  DeliveryBook book_;  // per-user offered / delivered
  mutable KeepBound keep_bound_;  // the filter's binomial lower bound (filter_page feeds it)
  mutable std::vector<double> keep_q_;  // filter_page's scratch: the page's keep probabilities
  sim::Histogram page_duration_;
  sim::Histogram write_latency_;
  std::vector<PageRecord> page_log_;
  sim::Histogram post_duration_;
  sim::Histogram read_latency_;
  sim::Histogram read_db_reads_;
  sim::Kind kind_page_;
};

}  // namespace fanout
