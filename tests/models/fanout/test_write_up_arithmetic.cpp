// The write-up's latency-stacking arithmetic (domain.md §8.2) must come out of the mechanism.
#include <catch2/catch.hpp>
#include <cstdio>

#include "fanout_fixtures.hpp"

using namespace fanout;
using sim::kMicrosecond;
using sim::kSecond;

namespace {
ExperimentSpec unloaded_no_tail() {
  ExperimentSpec spec;
  spec.author = fanout_test::celebrity_graph().id_of("celebrity");
  spec.scylla.exponential_service = false;  // every write takes its mean: "no tail"
  spec.warmup = 0;
  return spec;
}
}  // namespace

TEST_CASE("2M followers one by one at the mean write latency take ~20 minutes", FANOUT_HEAVY) {
  const auto& g = fanout_test::celebrity_graph();
  ExperimentSpec spec = unloaded_no_tail();
  spec.fanout.concurrency = 1;
  ExperimentResult r = run_experiment(g, spec);
  const PostReport& p = r.posts.at(0);
  // 2M ordinary followers plus the six hyper-following accounts.
  REQUIRE(p.written == g.follower_count(spec.author));
  REQUIRE(p.written >= 2'000'000);
  CHECK(p.pages == (p.written + 9'999) / 10'000);
  // Time = writes x mean latency + page fetches: nothing else is hidden in it.
  const double expected = static_cast<double>(p.written) * r.write_latency.mean() +
                          static_cast<double>(p.pages) * spec.fanout.page_fetch;
  CHECK(static_cast<double>(p.duration) == Approx(expected).epsilon(0.001));
  std::printf("sequential: %llu writes, mean write %.1f us, %.2f min\n",
              (unsigned long long)p.written, r.write_latency.mean() / 1e3,
              sim::to_seconds(p.duration) / 60);
  // 550 us per unloaded write (domain.md §7.6 quotes ~600 us) -> 18.3 min; 600 us -> 20 min.
  CHECK(sim::to_seconds(p.duration) / 60 > 17.0);
  CHECK(sim::to_seconds(p.duration) / 60 < 21.0);
}

TEST_CASE("1,000 writes in flight bring 2M followers to ~1.2 s when there is no tail", FANOUT_HEAVY) {
  const auto& g = fanout_test::celebrity_graph();
  ExperimentResult r = run_experiment(g, unloaded_no_tail());
  const PostReport& p = r.posts.at(0);
  REQUIRE(p.written == g.follower_count(g.id_of("celebrity")));
  // 200 pages x 10 rounds x ~0.55-0.6 ms + 200 page fetches of 1 ms; the fan-out's own
  // load queues a little on every shard, so the mean write is somewhat above 550 us.
  const double writes_s = 200.0 * 10 * r.write_latency.mean() / 1e9;
  CHECK(writes_s > 1.0);
  CHECK(writes_s < 1.5);
  CHECK(sim::to_seconds(p.duration) == Approx(writes_s + 0.2).epsilon(0.1));
  std::printf("1,000 in flight, no tail: mean write %.1f us, page P50 %.2f ms, P99 %.2f ms, "
              "post %.3f s\n",
              r.write_latency.mean() / 1e3, r.page_duration.quantile(0.5) / 1e6,
              r.page_duration.quantile(0.99) / 1e6, sim::to_seconds(p.duration));
  CHECK(r.page_duration.quantile(0.99) < 2 * r.page_duration.quantile(0.5));  // no tail
}
