// full: every post is written into every follower's timeline; a read fetches one partition.
// The baseline the write-up's figures are cut from (§8.2).
#include "models/fanout/policies/policy.hpp"

namespace fanout {
namespace {

class Full final : public Policy {
 public:
  FanoutPolicy id() const override { return FanoutPolicy::Full; }
  bool merged_at_read(std::uint32_t) const override { return false; }
  bool thins_pages() const override { return false; }
  void read_keys(std::uint32_t, std::vector<ReadKey>&) const override {}
};

}  // namespace

std::unique_ptr<Policy> make_full_policy(const PolicyContext&) { return std::make_unique<Full>(); }

}  // namespace fanout
