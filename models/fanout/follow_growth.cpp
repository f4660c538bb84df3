#include "models/fanout/follow_growth.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "components/lossy/loss_factor.hpp"
#include "models/fanout/fanout_service.hpp"

namespace fanout {

std::string_view class_name(UserClass c) {
  switch (c) {
    case UserClass::Ordinary:
      return "ordinary";
    case UserClass::Heavy:
      return "heavy";
    case UserClass::Grower:
      return "grower";
  }
  return "?";
}

void FollowGrowthConfig::validate() const {
  const auto ok = [](double x) { return std::isfinite(x) && x >= 0; };
  if (!ok(follow_events_per_s) || !ok(grower_follows_per_s) || !ok(posts_per_followed_s)) {
    throw std::invalid_argument(
        "fanout: follow_events, grower_follow_rate and posts_per_followed_s must be finite "
        "and >= 0");
  }
}

namespace {
// A FanoutService as the growth's host.
class ServiceHost final : public GrowthHost {
 public:
  explicit ServiceHost(FanoutService& svc) : svc_(svc) {}
  std::uint64_t reasonable_limit() const override { return svc_.config().reasonable_limit; }
  bool thins_pages() const override { return svc_.policy().thins_pages(); }
  FollowCountStore& store() override { return svc_.store(); }
  const lossy::PageFilter& page_filter() const override { return svc_.page_filter(); }
  std::shared_ptr<const lossy::FollowSnapshot> cache_snapshot() const override {
    return svc_.follow_cache().snapshot();
  }
  void filter_page(const social::UserId* page, std::size_t n, sim::Rng& page_r,
                   std::vector<social::UserId>& out) override {
    svc_.filter_page(page, n, page_r, out);
  }
  void write_background_row(std::uint32_t partition) override {
    svc_.write_background_row(partition);
  }

 private:
  FanoutService& svc_;
};
}  // namespace

FollowGrowth::FollowGrowth(sim::Simulation& sim, scylla::ScyllaCluster& cluster,
                           const social::FollowGraph& graph, FanoutService& svc,
                           FollowGrowthConfig cfg)
    : FollowGrowth(sim, cluster, graph, std::make_unique<ServiceHost>(svc), nullptr,
                   std::move(cfg)) {}

FollowGrowth::FollowGrowth(sim::Simulation& sim, scylla::ScyllaCluster& cluster,
                           const social::FollowGraph& graph, GrowthHost& host,
                           FollowGrowthConfig cfg)
    : FollowGrowth(sim, cluster, graph, nullptr, &host, std::move(cfg)) {}

FollowGrowth::~FollowGrowth() = default;

FollowGrowth::FollowGrowth(sim::Simulation& sim, scylla::ScyllaCluster& cluster,
                           const social::FollowGraph& graph, std::unique_ptr<GrowthHost> owned,
                           GrowthHost* host, FollowGrowthConfig cfg)
    : sim_(sim),
      cluster_(cluster),
      graph_(graph),
      own_host_(std::move(owned)),
      host_(host ? *host : *own_host_),
      inner_(host_.page_filter()),
      cfg_((cfg.validate(), std::move(cfg))),
      follow_rng_(sim.stream("fanout/follow_growth")),
      post_rng_(sim.stream("fanout/grower_posts")),
      page_rng_(sim.stream("fanout/grower_page_r")),
      added_(graph.users(), 0),
      class_(graph.users(), 0),
      audit_(inner_, [this] { return host_.cache_snapshot(); }, *this, host_.reasonable_limit()) {
  const std::uint64_t limit = host_.reasonable_limit();
  for (social::UserId u = 0; u < graph.users(); ++u) {
    if (graph.follow_count(u) > limit) {
      class_[u] = static_cast<std::uint8_t>(UserClass::Heavy);
    }
  }
  for (social::UserId g : cfg_.growers) {
    if (g >= graph.users()) {
      throw std::invalid_argument("fanout: grower " + std::to_string(g) + " is not a user");
    }
    if (class_[g] == static_cast<std::uint8_t>(UserClass::Grower)) {
      throw std::invalid_argument("fanout: grower " + std::to_string(g) + " listed twice");
    }
    class_[g] = static_cast<std::uint8_t>(UserClass::Grower);
    stats_.push_back({g, graph.follow_count(g), 0, 0, 0.0, 0.0});
    from_background_.push_back(cfg_.background_installed &&
                               graph.follow_count(g) >= cfg_.background_min_follows);
  }
  added_to_.resize(cfg_.growers.size());
  if (cfg_.follow_events_per_s > 0) {
    cum_follows_.assign(graph.users() + 1, 0);
    for (social::UserId u = 0; u < graph.users(); ++u) {
      cum_follows_[u + 1] = cum_follows_[u] + graph.follow_count(u);
    }
  }
  const std::pair<Process*, void (FollowGrowth::*)()> processes[] = {
      {&ordinary_, &FollowGrowth::ordinary_follow},
      {&grower_, &FollowGrowth::grower_follow},
      {&post_, &FollowGrowth::grower_post}};
  const char* kinds[] = {"fanout.ordinary_follow", "fanout.grower_follow", "fanout.grower_post"};
  for (std::size_t i = 0; i < 3; ++i) {
    processes[i].first->owner = this;
    processes[i].first->step = processes[i].second;
    processes[i].first->actor_id = sim.new_actor_id();
    processes[i].first->kind = sim.intern_kind(kinds[i]);
  }
}

std::uint64_t FollowGrowth::true_follows(social::UserId u) const {
  return static_cast<std::uint64_t>(graph_.follow_count(u)) + added_[u];
}

void FollowGrowth::start() {
  const bool lossy_policy = host_.thins_pages();  // lossy and lossy_on_read
  for (std::size_t i = 0; i < stats_.size() && cfg_.posts_per_followed_s > 0; ++i) {
    if (from_background_[i] == 0) {
      // Its timeline starts as a long history of its follows' posts through the filter left it.
      const social::UserId g = stats_[i].user;
      const double keep = lossy_policy ? inner_.keep_probability(g) : 1.0;
      cluster_.add_fed_partition(g, static_cast<double>(graph_.follow_count(g)) *
                                        cfg_.posts_per_followed_s * keep);
    }
  }
  if (cfg_.follow_events_per_s > 0) {
    sim_.schedule_in(
        static_cast<sim::Duration>(follow_rng_.exponential(1e9 / cfg_.follow_events_per_s)) + 1,
        ordinary_);
  }
  if (cfg_.grower_follows_per_s > 0 && !stats_.empty()) {
    const double rate = cfg_.grower_follows_per_s * static_cast<double>(stats_.size());
    sim_.schedule_in(static_cast<sim::Duration>(follow_rng_.exponential(1e9 / rate)) + 1,
                     grower_);
  }
  schedule_post();
}

void FollowGrowth::follow(social::UserId follower, social::UserId followee) {
  (void)followee;  // whom: recorded by the caller where it matters (growers' new edges)
  ++added_[follower];
  ++follows_made_;
  const std::uint64_t now_follows = true_follows(follower);
  if (now_follows > host_.reasonable_limit()) {
    host_.store().zadd(follower, now_follows);  // the sorted set holds the true score
  }
}

void FollowGrowth::ordinary_follow() {
  const auto n = static_cast<std::int64_t>(graph_.users());
  // The follower of a uniformly drawn existing edge, P(u) = follows(u) / edges, among the
  // non-growers (a grower follows at its own rate): a grower drawn is drawn again, at most 16
  // times (then uniform), so the growers' share of edges only thins the draw.
  social::UserId f = 0;
  bool found = false;
  for (int tries = 0; tries < 16 && graph_.edges() > 0 && !found; ++tries) {
    const auto e = static_cast<std::uint64_t>(
        follow_rng_.uniform_int(0, static_cast<std::int64_t>(graph_.edges()) - 1));
    f = static_cast<social::UserId>(std::upper_bound(cum_follows_.begin() + 1,
                                                     cum_follows_.end(), e) -
                                    (cum_follows_.begin() + 1));
    found = class_[f] != static_cast<std::uint8_t>(UserClass::Grower);
  }
  if (!found) {
    f = static_cast<social::UserId>(follow_rng_.uniform_int(0, n - 1));
  }
  auto v = static_cast<social::UserId>(follow_rng_.uniform_int(0, n - 2));
  v += v >= f ? 1 : 0;  // anyone but itself
  follow(f, v);
  sim_.schedule_in(
      static_cast<sim::Duration>(follow_rng_.exponential(1e9 / cfg_.follow_events_per_s)) + 1,
      ordinary_);
}

void FollowGrowth::grower_follow() {
  const auto i = static_cast<std::size_t>(
      follow_rng_.uniform_int(0, static_cast<std::int64_t>(stats_.size()) - 1));
  const social::UserId g = stats_[i].user;
  const auto n = static_cast<std::int64_t>(graph_.users());
  auto v = static_cast<social::UserId>(follow_rng_.uniform_int(0, n - 2));
  v += v >= g ? 1 : 0;
  added_to_[i].push_back(v);
  follow(g, v);
  if (!post_scheduled_) {
    schedule_post();  // a background-served grower's first new followee starts its posts
  }
  const double rate = cfg_.grower_follows_per_s * static_cast<double>(stats_.size());
  sim_.schedule_in(static_cast<sim::Duration>(follow_rng_.exponential(1e9 / rate)) + 1,
                   grower_);
}

// Rows/s grower i is offered from here: its follows' posts, minus those BackgroundPosts makes.
double FollowGrowth::grower_weight(std::size_t i) const {
  const std::uint64_t follows =
      from_background_[i] != 0 ? added_[stats_[i].user] : true_follows(stats_[i].user);
  return static_cast<double>(follows) * cfg_.posts_per_followed_s;
}

// The superposition of every grower's followees' posts is Poisson at the sum of the weights.
// The sum grows with each follow; the gap is drawn at the rate of its start (assumption: the
// rate moves by < 1e-3 relative within one gap at the default rates).
void FollowGrowth::schedule_post() {
  double total = 0;
  for (std::size_t i = 0; i < stats_.size(); ++i) {
    total += grower_weight(i);
  }
  if (!(total > 0)) {
    return;  // rescheduled by the next grower follow
  }
  post_scheduled_ = true;
  sim_.schedule_in(static_cast<sim::Duration>(post_rng_.exponential(1e9 / total)) + 1, post_);
}

void FollowGrowth::grower_post() {
  post_scheduled_ = false;
  double total = 0;
  for (std::size_t i = 0; i < stats_.size(); ++i) {
    total += grower_weight(i);
  }
  double pick = post_rng_.uniform01() * total;
  std::size_t i = 0;
  while (i + 1 < stats_.size() && pick >= grower_weight(i)) {
    pick -= grower_weight(i);
    ++i;
  }
  GrowerStats& s = stats_[i];
  const bool lossy_policy = host_.thins_pages();  // lossy and lossy_on_read
  ++s.offered;
  s.expected_cached += lossy_policy ? inner_.keep_probability(s.user) : 1.0;
  s.expected_true +=
      lossy_policy ? lossy::loss_factor(host_.reasonable_limit(), true_follows(s.user))
                   : 1.0;
  // The post's page holding the grower: one r for it, through the fan-out's own decision
  // (assumption: one grower per page; growers follow uniformly over millions of accounts).
  kept_.clear();
  host_.filter_page(&s.user, 1, page_rng_, kept_);
  if (!kept_.empty()) {
    ++s.delivered;
    host_.write_background_row(s.user);
  }
  schedule_post();
}

void FollowGrowth::filter(const social::UserId* page, std::size_t n, double page_r,
                          std::vector<social::UserId>& out) const {
  if (!cfg_.audit) {
    inner_.filter(page, n, page_r, out);
    return;
  }
  audit_.filter(page, n, page_r, out);
}

double FollowGrowth::grower_delivered_fraction() const {
  std::uint64_t offered = 0;
  std::uint64_t delivered = 0;
  for (const GrowerStats& g : stats_) {
    offered += g.offered;
    delivered += g.delivered;
  }
  return offered ? static_cast<double>(delivered) / static_cast<double>(offered) : 1.0;
}

double FollowGrowth::grower_exact_fraction() const {
  std::uint64_t offered = 0;
  double exact = 0;
  for (const GrowerStats& g : stats_) {
    offered += g.offered;
    exact += g.expected_true;
  }
  return offered ? exact / static_cast<double>(offered) : 1.0;
}

double FollowGrowth::keep_probability(social::UserId u) const {
  return inner_.keep_probability(u);
}

}  // namespace fanout
