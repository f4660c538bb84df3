// detect_block / detect_limit: a detector watches the timeline writes the fan-out makes and
// flags an account whose timeline receives more than a threshold of writes/s over a window
// (models/fanout/hyper_detector.hpp: a rule over what it observes, no flag set by hand); from
// then on that account's timeline writes are dropped (detect_block: the HN thread's "block the
// scraper bots") or limited to a rate (detect_limit). Every other write goes through as under
// full. Costs: the flagged accounts' timelines (`fanout.delivered_fraction_hyper`), the
// detection delay (`fanout.detect_delay_*`: the hot shards stay hot until then), and whoever is
// flagged without being a hyper-follower (`fanout.detect_false_positives`).
#include "models/fanout/policies/policy.hpp"

namespace fanout {
namespace {

class Detect final : public EveryFollower {
 public:
  explicit Detect(FanoutPolicy p) : id_(p) {}
  FanoutPolicy id() const override { return id_; }
  bool gates_writes() const override { return true; }

 private:
  FanoutPolicy id_;
};

}  // namespace

std::unique_ptr<Policy> make_detect_policy(FanoutPolicy p, const PolicyContext&) {
  return std::make_unique<Detect>(p);
}

}  // namespace fanout
