#include "models/fanout/fanout_service.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/fanout/background_posts.hpp"
#include "sim/trace.hpp"

namespace fanout {

namespace {

// What the three jobs share: one report in progress and a completion callback that runs at
// most once. A job may be reused from inside its callback (the caller starts the next post or
// read), so the slot is cleared before the call.
template <class Report>
class OneShotJob {
 public:
  bool active() const { return active_; }

 protected:
  void start(std::function<void(const Report&)> done, sim::Time now) {
    active_ = true;
    done_ = std::move(done);
    report_ = Report{};
    started_ = now;
  }
  void finish() {
    active_ = false;
    if (!done_) {
      return;
    }
    auto f = std::move(done_);
    done_ = nullptr;
    f(report_);
  }

  Report report_;
  sim::Time started_ = 0;

 private:
  bool active_ = false;
  std::function<void(const Report&)> done_;
};

}  // namespace

void FanoutConfig::validate() const {
  if (page_size == 0 || concurrency == 0) {
    throw std::invalid_argument("fanout: page_size and concurrency must be >= 1");
  }
  if (reasonable_limit == 0) {
    throw std::invalid_argument("fanout: reasonable_limit must be >= 1");
  }
  if (cache_refresh <= 0 || redis_rtt < 0 || page_fetch < 0 || hotkey_ttl <= 0) {
    throw std::invalid_argument(
        "fanout: cache_refresh and hotkey_ttl must be > 0, redis_rtt and page_fetch >= 0");
  }
  if (redis_rtt >= cache_refresh) {
    throw std::invalid_argument("fanout: redis_rtt must be shorter than cache_refresh");
  }
  if (policy == FanoutPolicy::Split && split_follows == 0) {
    throw std::invalid_argument("fanout: policy split needs split_follows >= 1");
  }
  if (policy == FanoutPolicy::ShardQueue) {
    shard_queue.validate();
  }
  if (policy == FanoutPolicy::DetectBlock || policy == FanoutPolicy::DetectLimit) {
    detector.validate();
  }
  if (policy == FanoutPolicy::HotKey) {
    HotKeyNodesConfig{hotkey, hotkey_ttl, coalesce_interval}.validate();
  }
  if (policy_uses_on_read_threshold(policy) && on_read_threshold == 0) {
    throw std::invalid_argument(
        "fanout: policy " + std::string(policy_name(policy)) +
        " needs on_read_threshold >= 1 (followers above which an author is merged at read "
        "time)");
  }
}

// One post's fan-out: a callback actor (page fetch timer + write completions), no coroutine.
class FanoutService::Job final : public sim::Handler,
                                 public scylla::WriteSink,
                                 public ShardQueue::Client,
                                 public OneShotJob<PostReport> {
 public:
  explicit Job(FanoutService& svc) : svc_(svc) {
    actor_id = svc.sim_.new_actor_id();
    kind = svc.kind_page_;
  }

  void begin(std::uint32_t author, std::function<void(const PostReport&)> done) {
    start(std::move(done), svc_.sim_.now());
    lane_.open(svc_.sim_, svc_.trace_name_, "post");
    report_.author = author;
    followers_ = svc_.graph_.followers(author);
    report_.followers = followers_.size();
    cursor_ = 0;
    queued_ = 0;
    queued_pages_.clear();
    svc_.sim_.schedule_in(svc_.cfg_.page_fetch, *this);
  }

  // The next page of follower ids has arrived.
  void on_event(sim::Simulation& sim) override {
    const std::size_t n = std::min<std::size_t>(svc_.cfg_.page_size, followers_.size() - cursor_);
    const social::UserId* slice = followers_.data() + cursor_;
    cursor_ += n;
    page_.clear();
    svc_.filter_page(slice, n, svc_.page_rng_, page_);
    for (std::size_t i = 0; i < n; ++i) {
      svc_.book_.offer(slice[i]);
    }
    svc_.writes_offered_ += n;
    page_start_ = sim.now();
    if (svc_.shard_queue_) {
      queue_page();
      return;
    }
    next_ = 0;
    in_flight_ = 0;
    const std::size_t first = std::min<std::size_t>(svc_.cfg_.concurrency, page_.size());
    for (std::size_t i = 0; i < first; ++i) {
      issue();
    }
    if (page_.empty()) {
      page_done();
    }
  }

  void on_done(sim::Simulation&, std::uint64_t user, sim::Duration latency) override {
    svc_.write_latency_.record(latency);
    if (svc_.hot_nodes_) {
      svc_.hot_nodes_->applied(svc_.policy_->timeline_partition(
          static_cast<std::uint32_t>(user), report_.author));
    }
    ++svc_.timeline_writes_;
    svc_.book_.deliver(static_cast<social::UserId>(user));
    ++report_.written;
    next_write();
  }
  // Scylla answered WriteTimeout: the row may or may not be stored on some replica; the
  // fan-out counts it as not delivered and moves on (assumption: no retry).
  void on_timeout(sim::Simulation&, std::uint64_t, sim::Duration latency) override {
    svc_.write_latency_.record(latency);
    ++svc_.write_timeouts_;
    next_write();
  }

  // shard_queue: a queued write answered (tag: page << 32 | user).
  void on_queued_done(sim::Simulation&, std::uint64_t tag, sim::Duration latency,
                      bool timed_out) override {
    svc_.write_latency_.record(latency);
    if (timed_out) {
      ++svc_.write_timeouts_;
    } else {
      const auto user = static_cast<social::UserId>(tag & 0xFFFF'FFFFu);
      ++svc_.timeline_writes_;
      svc_.book_.deliver(user);
      ++report_.written;
    }
    QueuedPage& page = queued_pages_[tag >> 32];
    --queued_;
    if (--page.left == 0) {
      record_page(page.start, page.writes);
    }
    if (queued_ == 0 && cursor_ == followers_.size()) {
      end_post();
    }
  }

 private:
  void next_write() {
    --in_flight_;
    if (next_ < page_.size()) {
      issue();
    } else if (in_flight_ == 0) {
      page_done();
    }
  }

  void issue() {
    const social::UserId u = page_[next_++];
    ++in_flight_;
    const std::uint32_t p = svc_.policy_->timeline_partition(u, report_.author);
    if (svc_.hot_nodes_) {
      // hotkey: the client's coordinator, whose detector sees the write (sent at once).
      svc_.cluster_.write(p, *this, u, svc_.hot_nodes_->route(p).via);
      return;
    }
    svc_.cluster_.write(p, *this, u);
  }

  // shard_queue: the page's writes go into the shard-partitioned queue and the next page is
  // fetched at once; the page is recorded when its last write is answered, the post ends when
  // every page is fetched and every write answered.
  void queue_page() {
    const std::uint64_t index = queued_pages_.size();
    queued_pages_.push_back({page_start_, page_.size(), page_.size()});
    for (social::UserId u : page_) {
      ++queued_;
      svc_.shard_queue_->push(svc_.policy_->timeline_partition(u, report_.author), *this,
                              index << 32 | u);
    }
    if (page_.empty()) {
      record_page(page_start_, 0);
    }
    if (cursor_ < followers_.size()) {
      svc_.sim_.schedule_in(svc_.cfg_.page_fetch, *this);
    } else if (queued_ == 0) {
      end_post();
    }
  }

  void record_page(sim::Time start, std::size_t writes) {
    const sim::Time now = svc_.sim_.now();
    svc_.page_duration_.record(now - start);
    if (svc_.page_log_.size() < kPageLogMax) {
      svc_.page_log_.push_back({start, now - start});
    }
    ++report_.pages;
    lane_.record(svc_.sim_, "page", "fanout", start,
                 {{"writes", static_cast<std::int64_t>(writes)}});
  }

  void page_done() {
    record_page(page_start_, page_.size());
    if (cursor_ < followers_.size()) {
      svc_.sim_.schedule_in(svc_.cfg_.page_fetch, *this);
      return;
    }
    end_post();
  }

  void end_post() {
    const sim::Time now = svc_.sim_.now();
    report_.duration = now - started_;
    svc_.post_duration_.record(report_.duration);
    lane_.close(svc_.sim_, "post fan-out", "fanout", started_,
                {{"author", static_cast<std::int64_t>(report_.author)},
                 {"followers", static_cast<std::int64_t>(report_.followers)},
                 {"written", static_cast<std::int64_t>(report_.written)},
                 {"pages", static_cast<std::int64_t>(report_.pages)}});
    finish();
  }

  FanoutService& svc_;
  sim::TraceLane lane_;
  std::span<const social::UserId> followers_;
  std::size_t cursor_ = 0;
  std::vector<social::UserId> page_;
  std::size_t next_ = 0;
  std::uint32_t in_flight_ = 0;
  sim::Time page_start_ = 0;
  struct QueuedPage {
    sim::Time start;
    std::size_t writes;
    std::size_t left;  // writes not yet answered
  };
  std::vector<QueuedPage> queued_pages_;  // shard_queue: every page of this post
  std::uint64_t queued_ = 0;              // shard_queue: writes queued or in flight
};

// One timeline read: the reader's own page plus, under fan-out-on-read, each followed
// celebrity's recent posts, all in parallel, merged when the last arrives.
class FanoutService::ReadJob final : public scylla::WriteSink, public OneShotJob<ReadReport> {
 public:
  explicit ReadJob(FanoutService& svc) : svc_(svc) {}

  void begin(std::uint32_t reader, std::function<void(const ReadReport&)> done) {
    start(std::move(done), svc_.sim_.now());
    lane_.open(svc_.sim_, svc_.trace_name_, "read");
    report_.reader = reader;
    keys_.clear();
    keys_.push_back({reader, svc_.cfg_.read_page_rows});
    svc_.policy_->read_keys(reader, keys_);
    report_.merged = static_cast<std::uint32_t>(keys_.size() - 1);
    // Keys served by the local hot-key cache never reach Scylla.
    std::size_t kept = 0;
    for (const ReadKey& key : keys_) {
      if (svc_.client_cache_ && svc_.client_cache_->lookup(key.partition, started_)) {
        ++report_.cache_hits;
        if (svc_.hot_nodes_) svc_.hot_nodes_->cache_hit(key.partition);  // stale?
      } else {
        keys_[kept++] = key;
      }
    }
    keys_.resize(kept);
    pending_ = static_cast<std::uint32_t>(kept);
    report_.db_reads = pending_;
    for (const ReadKey& key : keys_) {
      report_.rows_read += key.rows;
    }
    if (pending_ == 0) {
      complete();
      return;
    }
    for (const ReadKey& key : keys_) {
      if (svc_.hot_nodes_) {
        // hotkey: the coordinator node's detector sees the read; its reply carries "hot".
        const HotKeyNodes::Route r = svc_.hot_nodes_->route(key.partition);
        svc_.cluster_.read(key.partition, key.rows, *this,
                           std::uint64_t{r.hot} << 32 | key.partition, r.via);
      } else {
        svc_.cluster_.read(key.partition, key.rows, *this, key.partition);
      }
    }
  }

  void on_done(sim::Simulation& sim, std::uint64_t tag, sim::Duration) override {
    const std::uint64_t key = tag & 0xFFFF'FFFFu;
    if (svc_.hot_nodes_) {
      const bool hot = (tag >> 32) != 0;
      svc_.client_cache_->on_reply(static_cast<std::uint32_t>(key), hot, sim.now());
      if (hot) svc_.hot_nodes_->cached(static_cast<std::uint32_t>(key));
    } else if (svc_.detector_) {
      // The storage side samples the key and piggy-backs "hot" on the reply (§9.1).
      const bool hot = svc_.detector_->observe(static_cast<std::uint32_t>(key)).hot;
      svc_.client_cache_->on_reply(static_cast<std::uint32_t>(key), hot, sim.now());
    }
    if (--pending_ == 0) {
      complete();
    }
  }

 private:
  void complete() {
    report_.latency = svc_.sim_.now() - started_;
    svc_.read_latency_.record(report_.latency);
    svc_.read_db_reads_.record(report_.db_reads);
    lane_.close(svc_.sim_, "timeline read", "fanout", started_,
                {{"reader", static_cast<std::int64_t>(report_.reader)},
                 {"db_reads", static_cast<std::int64_t>(report_.db_reads)},
                 {"cache_hits", static_cast<std::int64_t>(report_.cache_hits)}});
    finish();
  }

  FanoutService& svc_;
  sim::TraceLane lane_;
  std::vector<ReadKey> keys_;
  std::uint32_t pending_ = 0;
};

// A merged author's post: the writes the policy names (on_read: its recent-post list; per_shard:
// one copy per shard holding a follower), which readers merge (§8.5); done at the last reply.
class FanoutService::ListWrite final : public scylla::WriteSink,
                                       public OneShotJob<PostReport> {
 public:
  explicit ListWrite(FanoutService& svc) : svc_(svc) {}

  void begin(std::uint32_t author, std::function<void(const PostReport&)> done) {
    start(std::move(done), svc_.sim_.now());
    report_.author = author;
    report_.followers = svc_.graph_.follower_count(author);
    report_.on_read = true;
    keys_.clear();
    svc_.policy_->merged_write_keys(author, keys_);
    pending_ = keys_.size();
    for (std::uint32_t key : keys_) {
      svc_.cluster_.write(key, *this, author);
    }
  }

  void on_done(sim::Simulation& sim, std::uint64_t, sim::Duration) override {
    ++svc_.list_writes_;
    if (--pending_ > 0) {
      return;
    }
    report_.duration = sim.now() - started_;
    svc_.post_duration_.record(report_.duration);
    finish();
  }

 private:
  FanoutService& svc_;
  std::vector<std::uint32_t> keys_;
  std::size_t pending_ = 0;
};

FanoutService::FanoutService(sim::Simulation& sim, scylla::ScyllaCluster& cluster,
                             const social::FollowGraph& graph, FanoutConfig cfg)
    : sim_(sim),
      cluster_(cluster),
      graph_(graph),
      cfg_((cfg.validate(), cfg)),
      policy_(make_policy(cfg_.policy, {graph, cfg_.on_read_threshold, graph.users(),
                                        cfg_.read_page_rows, &cluster, cfg_.split_follows})),
      page_rng_(sim.stream("fanout/page_r")),
      store_(cfg_.redis_rtt),
      cache_(cfg_.reasonable_limit),
      refresher_(sim, store_, cache_, cfg_.cache_refresh),
      cache_filter_(cache_),
      filter_(&cache_filter_),
      book_(graph.users()),
      keep_bound_(graph.users()),
      kind_page_(sim.intern_kind("fanout.page")) {
  if (cluster.partitions() < partitions_needed(graph, cfg_)) {
    throw std::invalid_argument("fanout: the cluster holds " +
                                std::to_string(cluster.partitions()) +
                                " partitions; the graph needs " +
                                std::to_string(partitions_needed(graph, cfg_)));
  }
  if (const std::string why = cluster_mismatch(cfg_.policy, cluster.config()); !why.empty()) {
    throw std::invalid_argument(why);
  }
  if (policy_->queues_by_shard()) {
    shard_queue_ = std::make_unique<ShardQueue>(sim, cluster, cfg_.shard_queue);
  }
  if (policy_->gates_writes()) {
    DetectorConfig dc = cfg_.detector;
    dc.block = cfg_.policy == FanoutPolicy::DetectBlock;
    hyper_detector_ = std::make_unique<HyperFollowerDetector>(graph.users(), dc);
  }
  if (policy_->per_node_hot_keys()) {
    // hotkey: a detector per node instead of the one front of `hotkey_cache`.
    hot_nodes_ = std::make_unique<HotKeyNodes>(
        sim, cluster, cluster.partitions(),
        HotKeyNodesConfig{cfg_.hotkey, cfg_.hotkey_ttl, cfg_.coalesce_interval});
    client_cache_ = std::make_unique<hotkey::HotKeyClientCache<std::uint32_t>>(cfg_.hotkey_ttl);
  } else if (cfg_.hotkey_cache) {
    detector_ = std::make_unique<hotkey::HotKeyDetector<std::uint32_t>>(cfg_.hotkey);
    client_cache_ = std::make_unique<hotkey::HotKeyClientCache<std::uint32_t>>(cfg_.hotkey_ttl);
  }
}

FanoutService::~FanoutService() {
  if (!sim_.shutting_down() && !sim_.idle()) {
    sim_.shutdown();  // pending page timers and the refresher point into this object
  }
}

// A finished job object is reused (its handlers stay allocated); a new one only when all are busy.
template <class J, class Owner>
J& idle_job(std::vector<std::unique_ptr<J>>& pool, Owner& owner) {
  for (auto& j : pool) {
    if (!j->active()) {
      return *j;
    }
  }
  pool.push_back(std::make_unique<J>(owner));
  return *pool.back();
}

void FanoutService::start() {
  if (!policy_->thins_pages()) {
    return;  // only the lossy filter reads the high-follow cache
  }
  for (social::UserId u = 0; u < graph_.users(); ++u) {
    const std::uint32_t f = graph_.follow_count(u);
    if (f > cfg_.reasonable_limit) {
      store_.zadd(u, f);
    }
  }
  refresher_.start();
}

void FanoutService::stop() { refresher_.stop(); }

bool FanoutService::is_on_read_author(std::uint32_t u) const {
  return policy_->merged_at_read(u);
}

void FanoutService::post(std::uint32_t author, std::function<void(const PostReport&)> done) {
  if (author >= graph_.users()) {
    throw std::out_of_range("fanout: author " + std::to_string(author) + " is not a user");
  }
  if (is_on_read_author(author)) {
    // Only the author's own recent-post list is written; readers merge it (§8.5).
    idle_job(list_writes_pool_, *this).begin(author, std::move(done));
    return;
  }
  idle_job(jobs_, *this).begin(author, std::move(done));
}

void FanoutService::read_timeline(std::uint32_t reader,
                                  std::function<void(const ReadReport&)> done) {
  if (reader >= graph_.users()) {
    throw std::out_of_range("fanout: reader " + std::to_string(reader) + " is not a user");
  }
  idle_job(reads_, *this).begin(reader, std::move(done));
}

void FanoutService::install_hyperfollower_background(std::uint32_t min_follows,
                                                     double posts_per_followed_s) {
  if (background_) {
    throw std::logic_error("fanout: the hyper-follower background is installed once");
  }
  background_ = std::make_unique<BackgroundPosts>(
      BackgroundPostsSetup{sim_, graph_, cluster_, *this, cfg_.page_size}, min_follows,
      posts_per_followed_s);
}

double FanoutService::keep_probability(social::UserId u) const {
  return policy_->thins_pages() ? filter_->keep_probability(u) : 1.0;
}

void FanoutService::timeline_partitions(social::UserId u, std::vector<std::uint32_t>& out) const {
  policy_->timeline_partitions(u, out);
}

std::uint32_t FanoutService::timeline_partition(social::UserId u, social::UserId author) const {
  return policy_->timeline_partition(u, author);
}

void FanoutService::write_background_row(std::uint32_t partition) {
  if (hot_nodes_) {
    hot_nodes_->background_row(partition);
    return;
  }
  cluster_.background_write(partition);
}

void FanoutService::filter_page(const social::UserId* page, std::size_t n, sim::Rng& page_r,
                                std::vector<social::UserId>& out) const {
  const std::size_t before = out.size();
  if (policy_->thins_pages()) {
    // One draw per page, just before writing it (domain.md §8.3).
    filter_->filter(page, n, page_r.uniform01(), out);
    keep_q_.resize(n);
    filter_->keep_probabilities(page, n, keep_q_.data());  // one set read for the page
    for (std::size_t i = 0; i < n; ++i) {
      keep_bound_.addressed(page[i], keep_q_[i]);
    }
    for (std::size_t i = before; i < out.size(); ++i) keep_bound_.kept(out[i]);
  } else {
    out.insert(out.end(), page, page + n);
  }
  if (hyper_detector_) {
    // detect_*: every write about to be made is seen by the detector, which refuses (block) or
    // rate-limits the flagged accounts'.
    hyper_detector_->admit_page(out, before, sim_.now());
  }
}

}  // namespace fanout
