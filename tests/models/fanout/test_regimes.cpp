// Hidden: the full fan-out over the bots' timeline write rate on Seastar-scheduled shards, to
// find the regimes in which the write-up's figures hold (docs/fanout.md, "Regimes").
//   test_fanout "[.regimes]"
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fanout_fixtures.hpp"

using namespace fanout;

TEST_CASE("regimes: steady tail and full/lossy fan-out over the bots' write rate", "[.regimes]") {
  const auto& g = fanout_test::celebrity_graph();
  const char* env = std::getenv("REGIME_PPF");  // one rate, e.g. REGIME_PPF=0.0048
  std::vector<double> rates{0.0045, 0.006, 0.0075, 0.009, 0.0105};
  if (env != nullptr) rates = {std::atof(env)};
  for (double ppf : rates) {
    for (auto pol : {FanoutPolicy::Full, FanoutPolicy::Lossy}) {
      ExperimentSpec spec;
      spec.author = g.id_of("celebrity");
      spec.scylla.background_writes_per_s = 5e5;
      spec.scylla.scale = 0.1;
      spec.posts_per_followed_s = ppf;
      spec.fanout.policy = pol;
      ExperimentResult r = run_experiment(g, spec);
      const sim::Histogram& w = r.steady_write_latency;
      std::printf(
          "%.0f/s %s: steady mean %.2f ms P99 %.1f ms P99.9 %.0f ms P99.99 %.0f ms | page P50 "
          "%.1f P99 %.1f ms | post %.2f s | hot %u | delivered %.4f | events %llu\n",
          ppf * 300'000, std::string(policy_name(pol)).c_str(), w.mean() / 1e6,
          w.quantile(0.99) / 1e6, w.quantile(0.999) / 1e6, w.quantile(0.9999) / 1e6,
          r.page_duration.quantile(0.5) / 1e6, r.page_duration.quantile(0.99) / 1e6,
          r.post_duration.max() / 1e9, r.hot_shards_during, r.delivery.writes_fraction,
          static_cast<unsigned long long>(r.events));
      std::fflush(stdout);
    }
  }
}
