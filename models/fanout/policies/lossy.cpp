// lossy: every post is fanned out, and each page goes through the production lossy filter
// (components/lossy, §8.3): a follower of f > reasonable_limit accounts keeps a write with
// probability limit / f. Costs: the thinned users' timelines (delivered fraction of the
// hyper-follower class); reads unchanged.
#include "models/fanout/policies/policy.hpp"

namespace fanout {
namespace {

class Lossy final : public EveryFollower {
 public:
  FanoutPolicy id() const override { return FanoutPolicy::Lossy; }
  bool thins_pages() const override { return true; }
};

}  // namespace

std::unique_ptr<Policy> make_lossy_policy(const PolicyContext&) {
  return std::make_unique<Lossy>();
}

}  // namespace fanout
