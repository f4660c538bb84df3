#pragma once
// The follow graph changing during a run (issue 23, deliverable 2), and what the fan-out's 30 s
// high-follow cache (domain.md §8.3) makes of it.
//
// Two follow processes, both Poisson (assumption: independent follows):
//  - ordinary follows: `follow_events_per_s` over the non-growers, the follower in
//    proportion to its follows at build time (the follower of a uniformly drawn edge:
//    assumption, an account that follows many keeps following more, so heavy followers' counts
//    grow fastest), the followee uniform over all accounts (assumption; whom new follows pick is
//    not published). They move true follow counts, so an account near the limit crosses it
//    during the run; their posts are not fanned out (the follower lists the fan-out walks are
//    the graph's, fixed; see "Limits" in docs/fanout.md).
//  - growing accounts (`growers`: the heavy followers, e.g. the bots and named follow-spree
//    accounts) each follow `grower_follows_per_s` new accounts. Every account a grower follows
//    posts at `posts_per_followed_s` (as BackgroundPosts assumes), and each such post's row for
//    the grower goes through the fan-out's page filter -- the production lossy component under
//    policy lossy -- so a grower's timeline is offered follows(t) x posts_per_followed_s rows/s
//    and keeps what the filter keeps. A grower BackgroundPosts already serves (>= its
//    min_follows) gets only its new followees' posts from here.
//
// True counts are written to the fan-out's sorted-set store (models/fanout/follow_count_store)
// on every follow that leaves an account above the limit (ZADD with the new score); the
// fan-out sees them only through its HighFollowCache, reloaded every cache_refresh. This object
// is also the fan-out's page filter (a decorator over the filter it was given): it lets the
// inner filter decide and audits each decision against the true count at that instant -- a
// decision is stale when loss_factor(cached count) != loss_factor(true count) -- per user class.
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "components/lossy/page_filter.hpp"
#include "models/fanout/growth_host.hpp"
#include "models/fanout/staleness_audit.hpp"
#include "models/scylla/cluster.hpp"
#include "models/social/follow_graph.hpp"
#include "sim/rng.hpp"
#include "sim/simulation.hpp"

namespace fanout {

class FanoutService;

struct FollowGrowthConfig {
  // assumption: 100 follows/s over the modelled population (the firehose peaked above 1,500
  // events/s of every record type, seeds/uid-interning-and-lossy-timelines.en.txt; the share
  // that are follows is not published).
  double follow_events_per_s = 100.0;
  // 0.46 follows/s: Bluesky's PDS limit of 5,000 points/hour at 3 points per created record,
  // "at most 1,666 records per hour" (docs.bsky.app/docs/advanced-guides/rate-limits), a
  // follow-bot's ceiling on Bluesky's own PDSes (other PDSes may set other limits).
  double grower_follows_per_s = 1666.0 / 3600.0;
  std::vector<social::UserId> growers;
  double posts_per_followed_s = 0.0037;  // as the scenario's background (docs/fanout.md)
  // Growers with at least this many follows at start are BackgroundPosts' (when installed).
  std::uint32_t background_min_follows = 100'000;
  bool background_installed = false;
  // false: filter() only delegates (what the audit costs: docs/benchmarks.md, h-graph).
  bool audit = true;

  void validate() const;
};

std::string_view class_name(UserClass c);  // "ordinary", "heavy", "grower"

// One growing account over the run.
struct GrowerStats {
  social::UserId user = 0;
  std::uint64_t start_follows = 0;
  std::uint64_t offered = 0;    // rows addressed to its timeline from here
  std::uint64_t delivered = 0;  // rows the filter kept (each written to every replica)
  // Sums over the offered rows of the keep probability the filter had (the cached factor) and
  // of loss_factor(true count at that instant): the delivered fraction expected from the cache
  // and the one exact counts would give.
  double expected_cached = 0;
  double expected_true = 0;
};

class FollowGrowth final : public lossy::PageFilter, public FollowTruth {
 public:
  // `host` (over `cluster` and `graph`) must outlive this; its current page filter becomes the
  // inner one. Over a FanoutService (the experiments of docs/fanout.md), its owner calls
  // svc.set_page_filter(*this) before svc.start() and the background posts, and start() after
  // both.
  FollowGrowth(sim::Simulation& sim, scylla::ScyllaCluster& cluster,
               const social::FollowGraph& graph, GrowthHost& host, FollowGrowthConfig cfg);
  // Over a FanoutService (the experiments; the fanout kind's until 7a68e53).
  FollowGrowth(sim::Simulation& sim, scylla::ScyllaCluster& cluster,
               const social::FollowGraph& graph, FanoutService& svc, FollowGrowthConfig cfg);
  ~FollowGrowth() override;
  FollowGrowth(const FollowGrowth&) = delete;
  FollowGrowth& operator=(const FollowGrowth&) = delete;

  void start();

  // lossy::PageFilter: the inner filter's decision, audited.
  void filter(const social::UserId* page, std::size_t n, double page_r,
              std::vector<social::UserId>& out) const override;
  double keep_probability(social::UserId u) const override;
  void keep_probabilities(const social::UserId* page, std::size_t n,
                          double* out) const override {
    inner_.keep_probabilities(page, n, out);
  }

  std::uint64_t true_follows(social::UserId u) const override;
  UserClass user_class(social::UserId u) const override {
    return static_cast<UserClass>(class_[u]);
  }
  std::uint64_t follows_made() const { return follows_made_; }
  // The audit of the decisions made through this object (a FanoutService's page filter).
  const StalenessCounts& staleness(UserClass c) const { return audit_.staleness(c); }
  const std::vector<GrowerStats>& growers() const { return stats_; }
  // Over the growers' offered rows: the fraction delivered, and what exact counts would have
  // delivered (1 with no rows offered yet).
  double grower_delivered_fraction() const;
  double grower_exact_fraction() const;
  const StalenessAudit& audit() const { return audit_; }
  // Accounts followed by grower i during the run, in order (the graph's new edges).
  const std::vector<social::UserId>& new_followees(std::size_t i) const { return added_to_[i]; }
  const FollowGrowthConfig& config() const { return cfg_; }

 private:
  FollowGrowth(sim::Simulation& sim, scylla::ScyllaCluster& cluster,
               const social::FollowGraph& graph, std::unique_ptr<GrowthHost> owned,
               GrowthHost* host, FollowGrowthConfig cfg);
  struct Process final : sim::Handler {
    FollowGrowth* owner = nullptr;
    void (FollowGrowth::*step)() = nullptr;
    void on_event(sim::Simulation&) override { (owner->*step)(); }
  };
  void ordinary_follow();
  void grower_follow();
  void grower_post();
  void follow(social::UserId follower, social::UserId followee);
  double grower_weight(std::size_t i) const;
  void schedule_post();

  sim::Simulation& sim_;
  scylla::ScyllaCluster& cluster_;
  const social::FollowGraph& graph_;
  std::unique_ptr<GrowthHost> own_host_;  // the FanoutService adapter, when built over one
  GrowthHost& host_;
  const lossy::PageFilter& inner_;
  FollowGrowthConfig cfg_;
  sim::Rng& follow_rng_;
  sim::Rng& post_rng_;
  sim::Rng& page_rng_;
  std::vector<std::uint32_t> added_;  // per user: follows made during the run
  std::vector<std::uint64_t> cum_follows_;  // users + 1 prefix sums of the build's follow counts
  std::vector<std::uint8_t> class_;   // per user: UserClass
  std::vector<GrowerStats> stats_;
  std::vector<std::vector<social::UserId>> added_to_;
  std::vector<std::uint8_t> from_background_;  // per grower: base follows served elsewhere
  std::uint64_t follows_made_ = 0;
  bool post_scheduled_ = false;
  StalenessAudit audit_;
  mutable std::vector<social::UserId> kept_;
  Process ordinary_;
  Process grower_;
  Process post_;
};

}  // namespace fanout
