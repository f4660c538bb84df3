// full: every post is written into every follower's timeline; a read fetches one partition.
// The baseline the write-up's figures are cut from (§8.2).
#include "models/fanout/policies/policy.hpp"

namespace fanout {
namespace {

class Full final : public EveryFollower {
 public:
  FanoutPolicy id() const override { return FanoutPolicy::Full; }
};

}  // namespace

std::unique_ptr<Policy> make_full_policy(const PolicyContext&) { return std::make_unique<Full>(); }

}  // namespace fanout
