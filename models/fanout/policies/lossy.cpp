// lossy: every post is fanned out, and each page goes through the production lossy filter
// (components/lossy, §8.3): a follower of f > reasonable_limit accounts keeps a write with
// probability limit / f. Costs: the thinned users' timelines (delivered fraction of the
// hyper-follower class); reads unchanged.
#include "models/fanout/policies/policy.hpp"

namespace fanout {
namespace {

class Lossy final : public Policy {
 public:
  FanoutPolicy id() const override { return FanoutPolicy::Lossy; }
  bool merged_at_read(std::uint32_t) const override { return false; }
  bool thins_pages() const override { return true; }
  void read_keys(std::uint32_t, std::vector<ReadKey>&) const override {}
};

}  // namespace

std::unique_ptr<Policy> make_lossy_policy(const PolicyContext&) {
  return std::make_unique<Lossy>();
}

}  // namespace fanout
