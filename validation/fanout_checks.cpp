// The write-up's fan-out arithmetic and the lossy-timelines results, driven through
// fanout::run_experiment on one follow graph shared (read-only) by every replication.
//
// Size: fewer followers than the write-up's 2,000,000, so ten replications of every case fit
// the selftest budget. What is compared is scale-free in the number of pages: a sequential
// fan-out costs the same per follower and an ideal concurrent one the same per page whatever
// the follower count, so both times are reported per 2,000,000 followers (x 2M / followers
// written, stated in the row); they run on a small graph (20,000 followers; 10,000 with
// --quick). The lossy-vs-full cuts are ratios of per-page and per-post times on the same seed,
// on a 200,000-follower celebrity (50,000 with --quick) in the reference population of
// docs/fanout.md (2,050,000 ordinary users, six accounts following 300,000), so the
// hyper-followers' partitions sit on the same shards as in the model's own tests: which
// shards get hot depends on those ids.
#include "validation/fanout_checks.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include "models/fanout/celebrity_experiment.hpp"
#include "models/social/population.hpp"
#include "validation/parallel.hpp"

namespace skysim::validation {
namespace {

constexpr double kWriteUpFollowers = 2'000'000;  // domain.md §8.2
constexpr double kWriteUpMeanWriteNs = 600e3;    // "~600 us" (domain.md §7.6, §8.2)
// "~" and "≈" figures of the write-up are read as +-10 % (the same relative resolution the
// queueing lines demand of their intervals); thresholds ("over 90 %") are taken as written.
constexpr double kApprox = 0.10;

// docs/fanout.md's experiment load: the rest of the fleet at half the busy-hour 1M writes/s.
constexpr double kFleetWritesPerS = 5e5;
// The hot-shard load behind the write-up's "before" (large accounts' jobs took 5-10 minutes):
// each of the six bots' timelines written 1,350 times a second — the "flare" workload of
// tests/models/fanout/test_lossy_vs_full.cpp (assumption there: how active the bots' followees
// are; docs/fanout.md). At 2M followers it gives 6-9 minute full fan-outs (seeds 1, 2).
constexpr double kBotFollows = 300'000;
constexpr double kFlareWritesPerBotS = 1'350;

social::FollowGraph population(std::uint32_t users, std::uint32_t celebrity_followers, int bots) {
  social::PopulationSpec spec;
  spec.users = users;
  spec.mean_follows = 5;  // ordinary users matter only as timelines to write
  spec.max_follows = 1'000;
  spec.celebrities = {{"celebrity", celebrity_followers}};
  for (int b = 0; b < bots; ++b) {
    spec.bots.push_back({"bot/" + std::to_string(b), static_cast<std::uint32_t>(kBotFollows)});
  }
  sim::Rng rng(1);
  return social::build_population(spec, rng);
}

struct SeedRuns {
  double sequential_ns = 0;       // one write at a time, fleet background; per 2M followers
  double sequential_mean_ns = 0;  // its mean write latency
  double ideal_write_ns = 0;      // 1,000 in flight, no tail: pages' write time per 2M followers
  double ideal_fetch_ns = 0;      // the same run's page fetches per 2M followers
  double page_p99_cut = 0;        // 1 - lossy / full, page P99, flare
  double post_cut = 0;            // 1 - lossy / full, whole-post time, flare
  double full_post_s = 0;
  double lossy_post_s = 0;
  std::uint32_t full_hot = 0;
  std::uint32_t lossy_hot = 0;
};

fanout::ExperimentSpec base_spec(const social::FollowGraph& g, std::uint64_t seed) {
  fanout::ExperimentSpec spec;
  spec.seed = seed;
  spec.author = g.id_of("celebrity");
  return spec;
}

const fanout::PostReport& only_post(const fanout::ExperimentResult& r) {
  if (r.posts.size() != 1) throw std::runtime_error("fan-out check: expected exactly one post");
  return r.posts.front();
}

// One write at a time and the no-tail ideal, on the small graph.
void run_arithmetic(const social::FollowGraph& g, std::uint64_t seed, SeedRuns& out) {
  const double followers = g.follower_count(g.id_of("celebrity"));
  const double per_2m = kWriteUpFollowers / followers;
  {
    // "Under normal circumstances": the fleet's writes, no hyper-followers. scale 1 simulates
    // every background write, so its queueing is not lumpier than the real fleet's.
    fanout::ExperimentSpec spec = base_spec(g, seed);
    spec.fanout.concurrency = 1;
    spec.scylla.background_writes_per_s = kFleetWritesPerS;
    spec.scylla.scale = 1.0;
    spec.warmup = 2 * sim::kSecond;  // queues on 384 shards at <= 0.4 busy settle in ms
    fanout::ExperimentResult r = fanout::run_experiment(g, spec);
    const fanout::PostReport& p = only_post(r);
    if (p.written != followers) throw std::runtime_error("sequential fan-out: writes missing");
    out.sequential_ns = static_cast<double>(p.duration) * per_2m;
    out.sequential_mean_ns = r.write_latency.mean();
  }
  {
    // The write-up's ideal: every write takes its mean (no tail), nothing else on the cluster.
    fanout::ExperimentSpec spec = base_spec(g, seed);
    spec.scylla.exponential_service = false;
    spec.warmup = 0;
    fanout::ExperimentResult r = fanout::run_experiment(g, spec);
    const fanout::PostReport& p = only_post(r);
    out.ideal_write_ns = r.page_duration.sum() * per_2m;
    out.ideal_fetch_ns =
        static_cast<double>(p.pages) * static_cast<double>(spec.fanout.page_fetch) * per_2m;
  }
}

// Full fan-out against lossy timelines under the hot-shard load, on the reference graph.
void run_policies(const social::FollowGraph& g, std::uint64_t seed, SeedRuns& out) {
  fanout::ExperimentResult by_policy[2];
  for (int i = 0; i < 2; ++i) {
    fanout::ExperimentSpec spec = base_spec(g, seed);
    spec.scylla.background_writes_per_s = kFleetWritesPerS;
    spec.scylla.scale = 0.1;  // as in the model's own lossy-vs-full tests
    spec.posts_per_followed_s = kFlareWritesPerBotS / kBotFollows;
    spec.fanout.policy = i == 0 ? fanout::FanoutPolicy::Full : fanout::FanoutPolicy::Lossy;
    by_policy[i] = fanout::run_experiment(g, spec);
  }
  const fanout::ExperimentResult& full = by_policy[0];
  const fanout::ExperimentResult& lossy = by_policy[1];
  auto cut = [](double after, double before) { return 1.0 - after / before; };
  out.page_p99_cut = cut(static_cast<double>(lossy.page_duration.quantile(0.99)),
                         static_cast<double>(full.page_duration.quantile(0.99)));
  out.full_post_s = sim::to_seconds(only_post(full).duration);
  out.lossy_post_s = sim::to_seconds(only_post(lossy).duration);
  out.post_cut = cut(out.lossy_post_s, out.full_post_s);
  out.full_hot = full.hot_shards_during;
  out.lossy_hot = lossy.hot_shards_during;
}

std::string thousands(double v) {
  std::string s = std::to_string(static_cast<long long>(v));
  for (int at = static_cast<int>(s.size()) - 3; at > 0; at -= 3) s.insert(at, ",");
  return s;
}

}  // namespace

FigureChecks fanout_checks(const SelftestOptions& options) {
  const std::uint32_t small = options.quick ? 10'000 : 20'000;  // whole pages, as 2M is
  const std::uint32_t followers = options.quick ? 50'000 : 200'000;
  const social::FollowGraph small_graph = population(5 * small, small, 0);
  const social::FollowGraph graph = population(2'050'000, followers, 6);
  const auto seeds = static_cast<std::size_t>(options.seeds);
  std::vector<SeedRuns> runs(seeds);
  std::vector<std::function<void()>> tasks;
  for (std::size_t i = 0; i < seeds; ++i) {
    tasks.push_back([&small_graph, &runs, i] { run_arithmetic(small_graph, i + 1, runs[i]); });
    tasks.push_back([&graph, &runs, i] { run_policies(graph, i + 1, runs[i]); });
  }
  run_tasks(tasks, options.jobs);

  auto column = [&runs](double SeedRuns::*field) {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(r.*field);
    return v;
  };
  const std::string size = thousands(small) + " followers, x 2M/" + thousands(small);
  FigureChecks out;

  BandCheck seq;
  seq.claim = "fan-out one follower at a time: 2M x ~600 us ≈ 20 min";
  seq.source = "seeds/uid-interning-and-lossy-timelines.en.txt, domain.md §8.2";
  seq.expected = "20 min (±10 %: 18..22)";
  seq.low = (1 - kApprox) * kWriteUpFollowers * kWriteUpMeanWriteNs;
  seq.high = (1 + kApprox) * kWriteUpFollowers * kWriteUpMeanWriteNs;
  seq.per_seed = column(&SeedRuns::sequential_ns);
  seq.unit = "min";
  seq.display_scale = 1.0 / (60 * 1e9);
  Interval mean_write = replication_interval(column(&SeedRuns::sequential_mean_ns), 0.95);
  seq.note = "[" + size + "; mean write " + format_number(mean_write.mean / 1e3, 3) +
             " us under the fleet's 5e5 writes/s]";
  out.band.push_back(seq);

  BandCheck ideal;
  ideal.claim = "fan-out 1,000 in flight, no tail: 2M/1,000 x 600 us ≈ 1.2 s of writes";
  ideal.source = seq.source;
  ideal.expected = "1.2 s (±10 %: 1.08..1.32)";
  ideal.low = (1 - kApprox) * kWriteUpFollowers / 1000 * kWriteUpMeanWriteNs;
  ideal.high = (1 + kApprox) * kWriteUpFollowers / 1000 * kWriteUpMeanWriteNs;
  ideal.per_seed = column(&SeedRuns::ideal_write_ns);
  ideal.unit = "s";
  ideal.display_scale = 1e-9;
  Interval fetch = replication_interval(column(&SeedRuns::ideal_fetch_ns), 0.95);
  ideal.note = "[" + size + "; + " + format_number(fetch.mean / 1e9, 2) +
               " s of page fetches, 1 ms each (assumption), not in the write-up's sum]";
  out.band.push_back(ideal);

  Interval full_post = replication_interval(column(&SeedRuns::full_post_s), 0.95);
  Interval lossy_post = replication_interval(column(&SeedRuns::lossy_post_s), 0.95);
  // On Seastar-scheduled shards the bots' 1,350 writes/s is below the regime where the
  // write-up's cuts hold (docs/fanout.md, "Regimes on Seastar-scheduled shards": the page cut
  // passes 90 % from ~1,440 writes/s, the post cut 96 % from ~1,600; at 1,350 a few shards
  // stay hot under lossy). Measured and shown, not re-tuned to the figures.
  const std::string regime = "docs/fanout.md";
  const std::string load = "[same seed, full vs lossy; bots' timelines 1,350 writes/s]";
  BandCheck page;
  page.claim = "lossy timelines cut the P99 of a page of fan-out by over 90 %";
  page.source = "seeds/uid-interning-and-lossy-timelines.en.txt, domain.md §8.3";
  page.expected = "> 90 %";
  page.low = 0.90;
  page.high = 1.0;
  page.per_seed = column(&SeedRuns::page_p99_cut);
  page.unit = "%";
  page.display_scale = 100;
  page.note = load;
  page.known_departure = regime;
  out.band.push_back(page);

  BandCheck post;
  post.claim = "lossy timelines cut a whole post's fan-out time by over 96 %";
  post.source = page.source;
  post.expected = "> 96 %";
  post.low = 0.96;
  post.high = 1.0;
  post.per_seed = column(&SeedRuns::post_cut);
  post.unit = "%";
  post.display_scale = 100;
  post.note = "[" + thousands(followers) + " followers: " + format_number(full_post.mean, 3) +
              " s -> " + format_number(lossy_post.mean, 3) + " s]";
  post.known_departure = regime;
  out.band.push_back(post);

  DirectCheck hot;
  std::uint32_t lossy_hot = 0;
  std::uint32_t full_hot_min = ~0u;
  for (const auto& r : runs) {
    lossy_hot += r.lossy_hot;
    full_hot_min = std::min(full_hot_min, r.full_hot);
  }
  hot.claim = "lossy timelines: no hot shards left (full fan-out has some on every seed)";
  hot.source = page.source;
  hot.expected = "0 hot under lossy, > 0 under full";
  hot.simulated = std::to_string(lossy_hot) +
                  " hot under lossy (all seeds), >= " + std::to_string(full_hot_min) +
                  " per seed under full";
  hot.pass = lossy_hot == 0 && full_hot_min > 0;
  hot.known_departure = regime;
  out.direct.push_back(hot);
  return out;
}

}  // namespace skysim::validation
