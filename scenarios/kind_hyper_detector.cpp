// The `hyper-detector` kind: the detect_block / detect_limit policies' detector (docs/fanout.md)
// (models/fanout/hyper_detector.hpp) as a part of a composition. It counts the timeline writes
// its writers are about to make, per account, in tumbling windows; an account whose timeline
// gets more than `threshold` writes/s over a window is flagged, and from then on its writes are
// refused (`action: block`) or pass a token bucket of `limit` writes/s. It serves no requests:
// a go-service's `hyper_detect` step asks it about each follower of a page, and a fanout-fleet
// that names it (`detector:`) about each of its rows. Assumption, as the kind's: the counters
// are one store every fan-out instance updates at once (no replication lag).
#include <algorithm>
#include <memory>

#include "scenarios/follow_graph_service.hpp"
#include "scenarios/hyper_detector_service.hpp"
#include "scenarios/param_builder.hpp"
#include "scenarios/peer_service.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;

std::vector<sim::ParamSpec> detector_params() {
  return {
      param("graph", ParamType::String, "", "",
            "the follow-graph service of the same datacenter, declared above this one (its "
            "accounts are what the detector counts; its follow counts tell false positives)"),
      param("enabled", ParamType::Bool, "", "true",
            "the feature flag: false, nothing is counted and every write passes (full fan-out)"),
      param("window", ParamType::Duration, "", "10s",
            "the counting window, tumbling, aligned on t = 0 (assumption, docs/fanout.md's "
            "detect_window)",
            1e6, 8.64e13),
      param("threshold", ParamType::Rate, "writes/s", "100/s",
            "timeline writes/s above which an account is flagged (assumption, docs/fanout.md's "
            "detect_threshold: below the write-up's 'hundreds a second', above a "
            "2,000-follow account's 15/s at the flare)",
            1e-3, 1e9),
      param("action", ParamType::Enum, "", "block",
            "what a flag does to the account's later writes: block (refused: docs/fanout.md's "
            "detect_block) or limit (a token bucket of `limit`: detect_limit)",
            std::nullopt, std::nullopt, {"block", "limit"}),
      param("limit", ParamType::Rate, "writes/s", "10/s",
            "action limit: a flagged account's timeline writes/s (assumption, as the fanout "
            "kind's detect_limit)",
            1e-3, 1e9),
      param("reasonable_limit", ParamType::Count, "follows", "2000",
            "a flagged account following no more than this is a false positive "
            "(fanout.detect_false_positives; the write-up's reasonable limit, §8.3)",
            1, 4e9),
  };
}

fanout::DetectorConfig detector_config(const sim::ParamValues& v) {
  fanout::DetectorConfig c;
  c.window = v.duration("window");
  c.threshold_per_s = v.rate_per_s("threshold");
  c.block = v.choice("action") == "block";
  c.limit_per_s = v.rate_per_s("limit");
  c.validate();
  return c;
}

class HyperDetectorService final : public Instance {
 public:
  HyperDetectorService(World& w, const HostContext& ctx) : Instance(ctx) {
    store_ = peer<const FollowGraphStore>(w, ctx, "graph", follow_graph_of);
    // Its counters take ~20 bytes per account (40 MB for the fan-out's 2M): none while off.
    if (ctx.params.flag("enabled")) {
      detector_ = std::make_unique<fanout::HyperFollowerDetector>(store_->graph->users(),
                                                                  detector_config(ctx.params));
    }
    reasonable_limit_ = static_cast<std::uint64_t>(ctx.params.count("reasonable_limit"));
    auto& m = w.metrics();
    const sim::Labels host = {{"host", path()}};
    using Flag = fanout::HyperFollowerDetector::Flag;
    m.gauge_fn("fanout.detect_flagged", host, [this] { return double(flags().size()); });
    m.gauge_fn("fanout.detect_false_positives", host, [this] {
      return sum([this](const Flag& f) {
        return store_->graph->follow_count(f.user) <= reasonable_limit_ ? 1.0 : 0.0;
      });
    });
    m.gauge_fn("fanout.detect_bots_flagged", host, [this] {
      return sum([this](const Flag& f) {
        return store_->is_bot(f.user) ? 1.0 : 0.0;
      });
    });
    m.gauge_fn("fanout.detect_delay_mean_ns", host, [this] {
      const double n = static_cast<double>(flags().size());
      return n > 0 ? sum([](const Flag& f) { return double(f.at - f.first_seen); }) / n : 0.0;
    });
    m.gauge_fn("fanout.detect_delay_max_ns", host, [this] {
      sim::Duration worst = 0;
      for (const Flag& f : flags()) worst = std::max(worst, f.at - f.first_seen);
      return double(worst);
    });
    m.counter_fn("fanout.detect_dropped", host,
                 [this] { return detector_ ? double(detector_->dropped()) : 0.0; });
    m.counter_fn("fanout.detect_observed", host,
                 [this] { return detector_ ? double(detector_->observed()) : 0.0; });
  }

  void handle(Request r) override { r.complete({false, "no_endpoint"}); }  // the loader refuses

  fanout::HyperFollowerDetector* detector() { return detector_.get(); }

 private:
  const std::vector<fanout::HyperFollowerDetector::Flag>& flags() const {
    static const std::vector<fanout::HyperFollowerDetector::Flag> kNone;
    return detector_ ? detector_->flagged() : kNone;
  }
  template <class F>
  double sum(F f) const {
    double total = 0;
    for (const auto& flag : flags()) total += f(flag);
    return total;
  }

  const FollowGraphStore* store_ = nullptr;
  std::unique_ptr<fanout::HyperFollowerDetector> detector_;  // null while the flag is off
  std::uint64_t reasonable_limit_ = 0;
};

}  // namespace

fanout::HyperFollowerDetector* hyper_detector_of(Instance* host) {
  auto* d = dynamic_cast<HyperDetectorService*>(host);
  return d ? d->detector() : nullptr;
}

ServiceKind hyper_detector_kind() {
  return ServiceKind{
      .name = "hyper-detector",
      .doc = "the hyper-follower detector of docs/fanout.md's detect_* policies "
             "(models/fanout/hyper_detector.hpp): counts the timeline writes of its writers (a "
             "go-service's hyper_detect step, a fanout-fleet's rows) per account and window, "
             "flags an account past `threshold`, then blocks or rate-limits its writes",
      .params = detector_params(),
      .endpoints = {},
      .build = [](World& w, const HostContext& c) -> std::unique_ptr<Instance> {
        return std::make_unique<HyperDetectorService>(w, c);
      },
      .peer_params = {{"graph", "follow-graph"}},
      .check_config =
          [](const HostContext& c) {
            if (c.host_count != 1) {
              throw std::invalid_argument(
                  "a hyper-detector service is one set of counters: write hosts: 1");
            }
            if (c.params.string("graph").empty()) {
              throw std::invalid_argument("graph: name the follow-graph service");
            }
            detector_config(c.params);
          },
  };
}

}  // namespace skysim::scenarios
