// Lossy timelines against full fan-out on the same seed and workload (domain.md §8.3 results).
#include <catch2/catch.hpp>
#include <cstdio>

#include "fanout_fixtures.hpp"

using namespace fanout;

namespace {

// The mixed workload: fleet background (half the busy-hour 1M writes/s, scaled 1/10) and six
// accounts following 300,000 whose timelines take 1,500 writes/s each (assumption: the
// followed accounts post every ~3 min on average; see docs/fanout.md for the sweep).
ExperimentSpec mixed(FanoutPolicy policy) {
  ExperimentSpec spec;
  spec.author = fanout_test::celebrity_graph().id_of("celebrity");
  spec.scylla.background_writes_per_s = 5e5;
  spec.scylla.scale = 0.1;
  spec.posts_per_followed_s = 0.005;
  spec.fanout.policy = policy;
  return spec;
}

const ExperimentResult& full() {
  static const ExperimentResult r = run_experiment(fanout_test::celebrity_graph(),
                                                   mixed(FanoutPolicy::Full));
  return r;
}
const ExperimentResult& lossy_run() {
  static const ExperimentResult r = run_experiment(fanout_test::celebrity_graph(),
                                                   mixed(FanoutPolicy::Lossy));
  return r;
}

}  // namespace

TEST_CASE("full fan-out with hot shards: the slowest write stretches every page", FANOUT_HEAVY) {
  const ExperimentResult& r = full();
  CHECK(r.posts.at(0).written == fanout_test::celebrity_graph().follower_count(
                                    fanout_test::celebrity_graph().id_of("celebrity")));
  CHECK(r.hot_shards_during >= 6);  // the bots' replicas (3 x 6, some may coincide)
  // A write P99 of the order the write-up reports (15 ms) comes from those few shards.
  CHECK(r.write_latency.quantile(0.99) > 10 * sim::kMillisecond);
  CHECK(r.page_duration.quantile(0.99) > 20 * r.page_duration.quantile(0.01));
  CHECK(r.post_duration.max() > 20 * sim::kSecond);
}

TEST_CASE("lossy timelines: page P99 -90 %, post -90 %+, no hot shard, bots pay", FANOUT_HEAVY) {
  const ExperimentResult& f = full();
  const ExperimentResult& l = lossy_run();
  const double page_cut = 1.0 - static_cast<double>(l.page_duration.quantile(0.99)) /
                                    static_cast<double>(f.page_duration.quantile(0.99));
  const double post_cut = 1.0 - static_cast<double>(l.post_duration.max()) /
                                    static_cast<double>(f.post_duration.max());
  std::printf("lossy vs full: page P99 %.1f -> %.1f ms (-%.1f%%), post %.2f -> %.2f s (-%.1f%%)\n",
              f.page_duration.quantile(0.99) / 1e6, l.page_duration.quantile(0.99) / 1e6,
              100 * page_cut, f.post_duration.max() / 1e9, l.post_duration.max() / 1e9,
              100 * post_cut);
  CHECK(page_cut > 0.90);
  CHECK(post_cut > 0.90);  // the write-up's 96 % is not reached here: docs/fanout.md says why
  CHECK(l.hot_shards_during == 0);
  // The price: only accounts above the limit lose writes, each in proportion to its excess.
  const auto& g = fanout_test::celebrity_graph();
  CHECK(l.delivery.writes_fraction < 1.0);
  CHECK(l.delivery.writes_fraction > 0.99999);
  std::uint64_t short_users = 0;
  for (social::UserId u = 0; u < g.users(); ++u) {
    if (l.offered[u] > l.delivered[u]) {
      ++short_users;
      CHECK(g.follow_count(u) > 2'000);
    }
  }
  CHECK(short_users == l.delivery.users_short);
  CHECK(f.delivery.users_short == 0);
}

TEST_CASE("same seed, same workload: identical results", FANOUT_HEAVY) {
  ExperimentResult again = run_experiment(fanout_test::celebrity_graph(),
                                          mixed(FanoutPolicy::Lossy));
  CHECK(again.fingerprint == lossy_run().fingerprint);
  CHECK(again.post_duration.max() == lossy_run().post_duration.max());
}
