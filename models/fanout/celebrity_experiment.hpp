#pragma once
// One reproducible experiment: an author's post fanned out into a Scylla cluster that also
// carries the rest of the fleet's writes and the hyper-following accounts' timelines. Used by
// the tests, the figures in docs/fanout.md and the scenario layer.
#include <cstdint>
#include <string>
#include <vector>

#include "models/fanout/fanout_service.hpp"
#include "models/scylla/cluster.hpp"
#include "models/social/follow_graph.hpp"
#include "sim/histogram.hpp"

namespace fanout {

struct ExperimentSpec {
  std::uint64_t seed = 1;
  std::uint32_t author = 0;
  std::uint32_t posts = 1;  // sequential posts by the author (the next after the previous ends)
  scylla::ScyllaConfig scylla;
  FanoutConfig fanout;
  // Accounts following >= hyper_min_follows get follows x posts_per_followed_s writes/s
  // from the rest of the fleet (0 disables).
  std::uint32_t hyper_min_follows = 100'000;
  double posts_per_followed_s = 0.0;
  // The post is made this long after start, so background and trim state are warmed up.
  sim::Duration warmup = 30 * sim::kSecond;
  sim::Duration hot_window = 10 * sim::kSecond;
  // Probe writes to uniformly chosen ordinary timelines over [warmup/3, warmup): what the
  // cluster's write latency looks like before the post (the write-up's "avg ~600 us, P99 up to
  // 15 ms" is that steady-state figure). 0 disables.
  double probe_writes_per_s = 1'000;
  // The lossy policy's page filter; null = the production component (components/lossy). A test
  // double here shows which results are the component's (it must outlive the run).
  const lossy::PageFilter* page_filter = nullptr;
};

struct DeliverySummary {
  std::uint64_t users_offered = 0;        // users the post(s) addressed
  std::uint64_t users_short = 0;          // of them, users that lost at least one write
  double min_fraction = 1.0;              // the worst-served user's delivered / offered
  double writes_fraction = 1.0;           // all delivered / all offered
};

struct ExperimentResult {
  std::vector<PostReport> posts;
  sim::Histogram page_duration;
  std::vector<FanoutService::PageRecord> page_log;  // every page: start time and duration
  sim::Histogram post_duration;
  sim::Histogram write_latency;         // of the fan-out's own writes
  sim::Histogram steady_write_latency;  // probe writes before the post (steady state)
  // Hot = offered work >= hot_utilisation (0.8) of a hot_window (10 s) window, windows aligned
  // on the run's start. Counted: distinct shards hot in at least one window.
  std::uint32_t hot_shards_before = 0;  // background only, windows inside [warmup/3, warmup)
  std::uint32_t hot_shards_during = 0;  // windows overlapping the fan-out
  std::uint32_t hot_shards_window_max = 0;  // the most shards hot in one window of the fan-out
  std::vector<double> utilisation_during;  // per shard, over the whole fan-out
  DeliverySummary delivery;
  std::vector<std::uint64_t> delivered;  // per user
  std::vector<std::uint64_t> offered;    // per user
  // The hyper-followers' background (background_posts.hpp), over the whole run: rows addressed
  // to them, rows the page filter kept (each written to RF replicas).
  std::uint64_t background_offered = 0;
  std::uint64_t background_delivered = 0;
  std::uint64_t events = 0;
  std::uint64_t fingerprint = 0;
};

ExperimentResult run_experiment(const social::FollowGraph& graph, const ExperimentSpec& spec);

}  // namespace fanout
