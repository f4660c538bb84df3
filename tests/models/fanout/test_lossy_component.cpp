// The lossy gain is the component's (issue 23, must-show 2): every write into the bots'
// timelines -- the celebrity post's pages and the rest of the fleet's posts -- goes through the
// fan-out service's page filter, by default components/lossy. Replaced by a test double that
// keeps everyone (same interface, same per-page r drawn and ignored), the lossy policy writes what
// full fan-out writes and its gain is gone; with the real component it is there.
//
// Workload: the celebrity graph (2M followers, six bots following 300,000), the fleet background
// of test_lossy_vs_full.cpp, bots' followees posting so each bot is offered 1,350 rows/s
// (the 1350/s regime of docs/fanout.md: hot shards under full fan-out, no timeouts).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "components/lossy/page_filter.hpp"
#include "fanout_fixtures.hpp"
#include "models/fanout/background_posts.hpp"

using namespace fanout;

namespace {

// Keeps every user of every page: the lossy policy without the component's filtering.
class PassEverything final : public lossy::PageFilter {
 public:
  void filter(const lossy::UserId* page, std::size_t n, double page_r,
              std::vector<lossy::UserId>& out) const override {
    bad_r_ += (page_r >= 0.0 && page_r < 1.0) ? 0 : 1;  // the service still draws the page's r
    ++pages_;
    out.insert(out.end(), page, page + n);
  }
  double keep_probability(lossy::UserId) const override { return 1.0; }
  mutable std::uint64_t pages_ = 0;
  mutable std::uint64_t bad_r_ = 0;
};

ExperimentSpec workload(FanoutPolicy policy, const lossy::PageFilter* filter) {
  ExperimentSpec spec;
  spec.author = fanout_test::celebrity_graph().id_of("celebrity");
  spec.scylla.background_writes_per_s = 5e5;
  spec.scylla.scale = 0.1;
  spec.posts_per_followed_s = 0.0045;  // x 300,000 follows = 1,350 rows/s offered per bot
  spec.fanout.policy = policy;
  spec.page_filter = filter;
  return spec;
}

double cut(sim::Duration with, sim::Duration without) {
  return 1.0 - static_cast<double>(with) / static_cast<double>(without);
}

void print(const char* name, const ExperimentResult& r) {
  std::printf(
      "%s: page P99 %.1f ms, post %.2f s, hot shards %u, bot rows kept %llu of %llu (%.4f), "
      "celebrity writes %llu, events %llu\n",
      name, r.page_duration.quantile(0.99) / 1e6, r.post_duration.max() / 1e9,
      r.hot_shards_during, static_cast<unsigned long long>(r.background_delivered),
      static_cast<unsigned long long>(r.background_offered),
      static_cast<double>(r.background_delivered) / static_cast<double>(r.background_offered),
      static_cast<unsigned long long>(r.posts.at(0).written),
      static_cast<unsigned long long>(r.events));
}

}  // namespace

TEST_CASE("lossy without the component's filtering has no lossy gain", FANOUT_HEAVY) {
  const auto& g = fanout_test::celebrity_graph();
  PassEverything pass;
  const ExperimentResult full = run_experiment(g, workload(FanoutPolicy::Full, nullptr));
  const ExperimentResult lossy = run_experiment(g, workload(FanoutPolicy::Lossy, nullptr));
  const ExperimentResult doubled = run_experiment(g, workload(FanoutPolicy::Lossy, &pass));
  print("full", full);
  print("lossy (components/lossy)", lossy);
  print("lossy (pass-everything double)", doubled);

  // The workload: under full fan-out the bots' replica shards are hot during the post.
  REQUIRE(full.hot_shards_during >= 1);
  REQUIRE(full.background_offered > 100'000);
  CHECK(full.background_delivered == full.background_offered);

  // With the component: the bots' timelines keep ~loss_factor = 2,000 / 300,000 of their rows
  // (one r per page, so the fraction is a mean over pages), no shard is hot, pages are fast.
  const double lf = 2'000.0 / 300'000.0;
  const double kept =
      static_cast<double>(lossy.background_delivered) / static_cast<double>(lossy.background_offered);
  CHECK(std::abs(kept - lf) < 0.2 * lf);
  CHECK(lossy.hot_shards_during == 0);
  CHECK(cut(lossy.page_duration.quantile(0.99), full.page_duration.quantile(0.99)) > 0.5);
  CHECK(cut(lossy.post_duration.max(), full.post_duration.max()) > 0.5);
  CHECK(lossy.posts.at(0).written < full.posts.at(0).written);

  // Without it: every row is written, the shards are as hot as under full fan-out, and the
  // page and post tails are full fan-out's (the per-page r streams are named streams of their
  // own, so drawing them moves nothing else).
  CHECK(pass.pages_ >= doubled.posts.at(0).pages);  // the double did decide every page
  CHECK(pass.bad_r_ == 0);
  CHECK(doubled.background_delivered == doubled.background_offered);
  CHECK(doubled.background_offered == full.background_offered);
  CHECK(doubled.posts.at(0).written == full.posts.at(0).written);
  CHECK(doubled.hot_shards_during == full.hot_shards_during);
  CHECK(std::abs(cut(doubled.page_duration.quantile(0.99), full.page_duration.quantile(0.99))) <
        0.05);
  CHECK(std::abs(cut(doubled.post_duration.max(), full.post_duration.max())) < 0.05);
}
