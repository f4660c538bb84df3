#pragma once
// The rest of the fleet's posts as the hyper-following accounts' timelines receive them
// (issue 23, deliverable 2): every account some hyper-follower follows posts at
// posts_per_followed_s (Poisson, assumption), and each post is fanned out page by page through
// the fan-out service's page filter -- under the lossy policy the production component
// (components/lossy), so a hyper-follower's timeline loses a write because the component dropped
// it, not because a rate was multiplied by its loss factor.
//
// Only the hyper-followers' rows are simulated (write by write, never scaled); the ordinary
// followers of the same posts are the cluster's fluid background (ScyllaConfig::
// background_writes_per_s). A post's page is the author's follower list cut at page_size, as the
// celebrity post's; its kept hyper-followers are written at the post's instant (assumption: the
// background authors are small, one page, written within a millisecond).
#include <cstdint>
#include <string>
#include <vector>

#include "models/fanout/post_route.hpp"
#include "models/scylla/cluster.hpp"
#include "models/social/follow_graph.hpp"
#include "sim/rng.hpp"
#include "sim/simulation.hpp"

namespace fanout {

// Where the posts come from and go: the graph, the cluster holding the timelines, the route
// through the page decision, the page size, and the names of the two streams (arrivals and
// authors; the per-page r).
struct BackgroundPostsSetup {
  sim::Simulation& sim;
  const social::FollowGraph& graph;
  scylla::ScyllaCluster& cluster;
  PostRoute& route;
  std::uint32_t page_size = 10'000;
  std::string post_stream = "fanout/background_posts";
  std::string page_r_stream = "fanout/background_page_r";
};

class BackgroundPosts final : public sim::Handler {
 public:
  // Hyper-followers: accounts following >= min_follows. Their timelines are registered with the
  // cluster, warmed at follows x posts_per_followed_s x the filter's keep probability (the state
  // a long history of such writes leaves). Starts posting at now.
  BackgroundPosts(const BackgroundPostsSetup& setup, std::uint32_t min_follows,
                  double posts_per_followed_s);

  void on_event(sim::Simulation& sim) override;

  std::uint32_t authors() const { return static_cast<std::uint32_t>(authors_.size()); }
  std::uint32_t hyper_followers() const { return hyper_; }
  std::uint64_t posts() const { return posts_; }
  std::uint64_t offered() const { return offered_total_; }    // hyper-follower rows addressed
  std::uint64_t delivered() const { return delivered_total_; }  // rows the filter kept
  std::uint64_t offered(social::UserId u) const { return offered_[u]; }
  std::uint64_t delivered(social::UserId u) const { return delivered_[u]; }

 private:
  struct Target {
    std::uint32_t page;  // which page of the author's followers holds it
    social::UserId user;
  };
  void fan_out(std::uint32_t author_index);
  // One post's draws from post_rng_, in the stream's order: its author, then the gap to the next.
  struct PostDraw {
    std::uint32_t author;
    sim::Duration gap;
  };
  PostDraw draw_post();
  sim::Duration draw_gap();
  void prefetch_targets(std::uint32_t author_index) const;

  PostRoute& route_;
  sim::Rng& post_rng_;  // arrivals and authors
  sim::Rng& page_rng_;  // the per-page r, a stream of its own beside the celebrity post's
  double mean_gap_ns_ = 0;
  std::vector<social::UserId> authors_;   // ascending ids: followed by >= 1 hyper-follower
  // Per author, its targets in follower order (pages ascending), packed so that a post -- an
  // author drawn uniformly among ~10^6 -- costs one cache miss, not two (docs/benchmarks.md,
  // h-fanspeed): `a` and `b` each hold one target (bit 63 set, page << 32 | user; `b` 0 when
  // the author has one), or `a` (bit 63 clear) an offset into more_, `b` the count there.
  struct Slot {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
  };
  static constexpr std::uint64_t kInline = std::uint64_t{1} << 63;
  std::vector<Slot> slots_;               // authors_.size()
  std::vector<Target> more_;              // authors with three or more targets
  std::vector<Target> targets_;           // one author's, while building and per post
  std::vector<social::UserId> page_;      // one page's hyper-followers, before the filter
  std::vector<social::UserId> kept_;
  std::vector<std::uint32_t> offered_;    // per user
  std::vector<std::uint32_t> delivered_;  // per user
  // The next two posts, drawn ahead (the draws are the same, in the same order, as if each were
  // drawn at its post): a post's author is a uniform pick among ~10^6, and its slot's cache miss
  // was ~9 % of a policy run (perf annotate); known two posts early, the slot is fetched while
  // other events run, and one post early the targets it points to.
  PostDraw ahead_[2] = {};
  std::uint32_t hyper_ = 0;
  std::uint64_t posts_ = 0;
  std::uint64_t offered_total_ = 0;
  std::uint64_t delivered_total_ = 0;
};

}  // namespace fanout
