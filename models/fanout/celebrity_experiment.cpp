#include "models/fanout/celebrity_experiment.hpp"

#include <algorithm>
#include <memory>

#include "models/fanout/background_posts.hpp"

namespace fanout {
namespace {

// Poisson probe writes to uniformly chosen ordinary timelines, recorded on their own.
class Probe final : public sim::Handler, public scylla::WriteSink {
 public:
  Probe(sim::Simulation& sim, scylla::ScyllaCluster& cluster, std::uint32_t users, double rate,
        sim::Time stop)
      : sim_(sim),
        cluster_(cluster),
        rng_(sim.stream("experiment/probe")),
        users_(users),
        mean_gap_ns_(1e9 / rate),
        stop_(stop) {
    actor_id = sim.new_actor_id();
    kind = sim.intern_kind("experiment.probe");
  }
  void start(sim::Time at) { sim_.schedule_at(at, *this); }
  void on_event(sim::Simulation& sim) override {
    const auto key = static_cast<scylla::PartitionKey>(rng_.uniform_int(0, users_ - 1));
    cluster_.write(key, *this, 0);
    const sim::Time next = sim.now() + static_cast<sim::Time>(rng_.exponential(mean_gap_ns_)) + 1;
    if (next < stop_) {
      sim.schedule_at(next, *this);
    }
  }
  void on_done(sim::Simulation&, std::uint64_t, sim::Duration latency) override {
    latency_.record(latency);
  }
  const sim::Histogram& latency() const { return latency_; }

 private:
  sim::Simulation& sim_;
  scylla::ScyllaCluster& cluster_;
  sim::Rng& rng_;
  std::uint32_t users_;
  double mean_gap_ns_;
  sim::Time stop_;
  sim::Histogram latency_;
};

// Every hot_window: which shards were offered >= hot_utilisation of the window's time. A
// scheduled event, so where the windows fall never depends on when results are read.
class HotWindows final : public sim::Handler {
 public:
  HotWindows(sim::Simulation& sim, scylla::ScyllaCluster& cluster, sim::Duration window)
      : cluster_(cluster), window_(window), ever_hot_(cluster.config().total_shards(), 0) {
    actor_id = sim.new_actor_id();
    kind = sim.intern_kind("experiment.hot_window");
  }
  void on_event(sim::Simulation& sim) override {
    close(sim.now());
    sim.schedule_in(window_, *this);
  }
  void close(sim::Time now) {
    const std::vector<double> u = cluster_.utilisations(now);
    std::uint32_t hot = 0;
    for (std::size_t s = 0; s < u.size(); ++s) {
      if (u[s] >= cluster_.config().hot_utilisation) {
        ++hot;
        ever_hot_[s] = 1;
      }
    }
    window_max_ = std::max(window_max_, hot);
    cluster_.reset_window(now);
  }
  // Starts a new count (distinct shards, max per window) from now on.
  void restart() {
    std::fill(ever_hot_.begin(), ever_hot_.end(), 0);
    window_max_ = 0;
  }
  std::uint32_t distinct() const {
    return static_cast<std::uint32_t>(std::count(ever_hot_.begin(), ever_hot_.end(), 1));
  }
  std::uint32_t window_max() const { return window_max_; }

 private:
  scylla::ScyllaCluster& cluster_;
  sim::Duration window_;
  std::vector<std::uint8_t> ever_hot_;
  std::uint32_t window_max_ = 0;
};

}  // namespace

ExperimentResult run_experiment(const social::FollowGraph& graph, const ExperimentSpec& spec) {
  ExperimentResult out;
  sim::Simulation sim(spec.seed);
  scylla::ScyllaConfig sc = spec.scylla;
  configure_cluster_for(spec.fanout.policy, spec.fanout.retry_after, sc);
  auto cluster = std::make_unique<scylla::ScyllaCluster>(
      sim, sc, FanoutService::partitions_needed(graph, spec.fanout));
  auto service = std::make_unique<FanoutService>(sim, *cluster, graph, spec.fanout);
  if (spec.page_filter != nullptr) {
    service->set_page_filter(*spec.page_filter);
  }
  service->start();
  if (spec.posts_per_followed_s > 0) {
    service->install_hyperfollower_background(spec.hyper_min_follows, spec.posts_per_followed_s);
  }
  const sim::Time before_start = spec.warmup / 3;
  std::unique_ptr<Probe> probe;
  if (spec.probe_writes_per_s > 0 && spec.warmup > 0) {
    probe = std::make_unique<Probe>(sim, *cluster, graph.users(), spec.probe_writes_per_s,
                                    spec.warmup);
    probe->start(before_start);
  }
  sim.run_until(before_start);
  // Windows start where the pre-post window does; a window still open at the post closes
  // there, so "before" never sees the fan-out's own writes.
  HotWindows windows(sim, *cluster, spec.hot_window);
  cluster->reset_window(before_start);
  sim.schedule_at(before_start + spec.hot_window, windows);
  sim.run_until(spec.warmup);
  windows.close(spec.warmup);
  out.hot_shards_before = windows.distinct();
  windows.restart();
  cluster->reset_latency();
  std::vector<double> busy_at_post(cluster->config().total_shards());
  for (scylla::ShardId s = 0; s < busy_at_post.size(); ++s) {
    busy_at_post[s] = cluster->busy_ns(s, spec.warmup);
  }

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
  windows.close(end);
  out.hot_shards_during = windows.distinct();
  out.hot_shards_window_max = windows.window_max();
  out.utilisation_during.resize(busy_at_post.size());
  for (scylla::ShardId s = 0; s < busy_at_post.size(); ++s) {
    out.utilisation_during[s] = end > spec.warmup ? (cluster->busy_ns(s, end) - busy_at_post[s]) /
                                                        static_cast<double>(end - spec.warmup)
                                                  : 0.0;
  }
  out.page_duration = service->page_duration();
  out.page_log = service->page_log();
  out.post_duration = service->post_duration();
  out.write_latency = service->write_latency();
  if (probe) {
    out.steady_write_latency = probe->latency();
  }
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
  if (const BackgroundPosts* bg = service->background()) {
    out.background_offered = bg->offered();
    out.background_delivered = bg->delivered();
  }
  out.events = sim.events_executed();
  out.fingerprint = sim.fingerprint();
  service->stop();
  sim.shutdown();
  return out;
}

}  // namespace fanout
