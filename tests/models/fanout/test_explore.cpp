// Hidden cases that produce the figures and the speed measurement of docs/fanout.md:
//   test_fanout "[.figures]"   writes docs/fanout/*.csv (then gnuplot docs/fanout/plots.gp)
//   test_fanout "[.speed]"     times one 2M-follower fan-out (CPU seconds, median of 5)
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

#include "fanout_fixtures.hpp"

using namespace fanout;

namespace {

ExperimentSpec mixed(FanoutPolicy policy, double posts_per_followed_s) {
  ExperimentSpec spec;
  spec.author = fanout_test::celebrity_graph().id_of("celebrity");
  spec.scylla.background_writes_per_s = 5e5;
  spec.scylla.scale = 0.1;
  spec.posts_per_followed_s = posts_per_followed_s;
  spec.fanout.policy = policy;
  return spec;
}

std::string out_dir() { return std::string(SKYSIM_SOURCE_DIR) + "/docs/fanout/"; }

}  // namespace

TEST_CASE("figures: lossy vs full over the bots' timeline write rate", "[.figures]") {
  const auto& g = fanout_test::celebrity_graph();
  std::ofstream sweep(out_dir() + "sweep.csv");
  sweep << "# bot_writes_per_s policy steady_mean_us steady_p99_ms steady_p999_ms "
           "steady_p9999_ms page_p50_ms page_p99_ms post_s write_p99_ms hot_shards "
           "hot_window_max delivered_fraction\n";
  for (double ppf : {0.0045, 0.0046, 0.0048, 0.0051, 0.006, 0.0075, 0.009}) {
    for (auto pol : {FanoutPolicy::Full, FanoutPolicy::Lossy}) {
      ExperimentResult r = run_experiment(g, mixed(pol, ppf));
      const sim::Histogram& w = r.steady_write_latency;
      char line[320];
      std::snprintf(line, sizeof line,
                    "%.0f %s %.0f %.1f %.0f %.0f %.2f %.2f %.3f %.2f %u %u %.7f\n",
                    ppf * 300'000, std::string(policy_name(pol)).c_str(), w.mean() / 1e3,
                    w.quantile(0.99) / 1e6, w.quantile(0.999) / 1e6, w.quantile(0.9999) / 1e6,
                    r.page_duration.quantile(0.5) / 1e6, r.page_duration.quantile(0.99) / 1e6,
                    r.post_duration.max() / 1e9, r.write_latency.quantile(0.99) / 1e6,
                    r.hot_shards_during, r.hot_shards_window_max, r.delivery.writes_fraction);
      sweep << line << std::flush;
      std::fputs(line, stdout);
      std::fflush(stdout);
      if (ppf == 0.0075) {  // the "flare" workload of test_lossy_vs_full.cpp
        const std::string name(policy_name(pol));
        std::ofstream util(out_dir() + "utilisation_" + name + ".csv");
        std::vector<double> u = r.utilisation_during;
        std::sort(u.rbegin(), u.rend());
        util << "# rank utilisation (whole fan-out, bots at 2,250 writes/s)\n";
        for (std::size_t i = 0; i < u.size(); ++i) {
          util << i << ' ' << u[i] << '\n';
        }
        std::ofstream cdf(out_dir() + "page_cdf_" + name + ".csv");
        cdf << "# page_duration_ms cumulative_fraction\n";
        std::uint64_t seen = 0;
        r.page_duration.for_each_bucket([&](std::uint64_t lo, std::uint64_t n) {
          seen += n;
          cdf << lo / 1e6 << ' '
              << static_cast<double>(seen) / static_cast<double>(r.page_duration.count())
              << '\n';
        });
      }
    }
  }
  // Pages over time, full fan-out at 1,530 writes/s: per-shard compaction vs one global grid.
  for (bool aligned : {false, true}) {
    ExperimentSpec spec = mixed(FanoutPolicy::Full, 0.0051);
    spec.scylla.timeline.aligned_compaction = aligned;
    ExperimentResult r = run_experiment(g, spec);
    std::ofstream pages(out_dir() + (aligned ? "pages_aligned.csv" : "pages_per_shard.csv"));
    pages << "# seconds_since_post page_duration_ms (full fan-out, bots at 1,530 writes/s)\n";
    for (const auto& p : r.page_log) {
      pages << sim::to_seconds(p.start - spec.warmup) << ' ' << p.duration / 1e6 << '\n';
    }
    std::printf("1530/s full, %s compaction: post %.1f s, steady P99 %.1f ms\n",
                aligned ? "aligned" : "per-shard", r.post_duration.max() / 1e9,
                r.steady_write_latency.quantile(0.99) / 1e6);
  }
}

TEST_CASE("speed: one 2M-follower fan-out, every write simulated", "[.speed]") {
  const auto& g = fanout_test::celebrity_graph();
  ExperimentSpec spec;
  spec.author = g.id_of("celebrity");
  spec.warmup = 0;
  std::vector<double> cpu;
  for (int i = 0; i < 5; ++i) {
    std::clock_t c0 = std::clock();
    ExperimentResult r = run_experiment(g, spec);
    cpu.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    std::printf("2M fan-out: %llu writes, %llu events, %.3f s CPU\n",
                (unsigned long long)r.posts[0].written, (unsigned long long)r.events, cpu.back());
  }
  std::sort(cpu.begin(), cpu.end());
  std::printf("median %.3f s CPU\n", cpu[2]);
  std::fflush(stdout);
  CHECK(cpu[2] < 2.0);
}
