#include "models/fanout/celebrity_experiment.hpp"

#include <algorithm>
#include <memory>

namespace fanout {

ExperimentResult run_experiment(const social::FollowGraph& graph, const ExperimentSpec& spec) {
  ExperimentResult out;
  sim::Simulation sim(spec.seed);
  auto cluster = std::make_unique<scylla::ScyllaCluster>(
      sim, spec.scylla, FanoutService::partitions_needed(graph));
  auto service = std::make_unique<FanoutService>(sim, *cluster, graph, spec.fanout);
  service->start();
  if (spec.posts_per_followed_s > 0) {
    service->install_hyperfollower_background(spec.hyper_min_follows, spec.posts_per_followed_s);
  }
  const sim::Time before_start = spec.warmup / 3;
  sim.run_until(before_start);
  cluster->reset_window(before_start);
  sim.run_until(spec.warmup);
  out.hot_shards_before = cluster->count_hot_shards(spec.warmup);
  cluster->reset_window(spec.warmup);
  cluster->reset_latency();

  std::uint32_t remaining = spec.posts;
  std::function<void(const PostReport&)> on_post = [&](const PostReport& r) {
    out.posts.push_back(r);
    if (--remaining == 0) {
      sim.stop();
    } else {
      service->post(spec.author, on_post);
    }
  };
  if (remaining > 0) {
    service->post(spec.author, on_post);
    sim.run();
  }
  const sim::Time end = sim.now();
  out.utilisation_during = cluster->utilisations(end);
  out.hot_shards_during = cluster->count_hot_shards(end);
  out.page_duration = service->page_duration();
  out.post_duration = service->post_duration();
  out.write_latency = cluster->write_latency();
  out.delivered.resize(graph.users());
  out.offered.resize(graph.users());
  std::uint64_t all_offered = 0;
  std::uint64_t all_delivered = 0;
  for (social::UserId u = 0; u < graph.users(); ++u) {
    out.offered[u] = service->offered(u);
    out.delivered[u] = service->delivered(u);
    if (out.offered[u] == 0) {
      continue;
    }
    ++out.delivery.users_offered;
    all_offered += out.offered[u];
    all_delivered += out.delivered[u];
    const double f = static_cast<double>(out.delivered[u]) / static_cast<double>(out.offered[u]);
    out.delivery.users_short += f < 1.0 ? 1 : 0;
    out.delivery.min_fraction = std::min(out.delivery.min_fraction, f);
  }
  out.delivery.writes_fraction =
      all_offered ? static_cast<double>(all_delivered) / static_cast<double>(all_offered) : 1.0;
  out.events = sim.events_executed();
  out.fingerprint = sim.fingerprint();
  service->stop();
  sim.shutdown();
  return out;
}

}  // namespace fanout
