// lossy_on_read: both cuts at once (the write-up's discussion: one for the authors with many
// followers, one for the accounts with many follows). Authors above on_read_threshold are
// merged at read time as under on_read; every other post is fanned out through the lossy page
// filter as under lossy. Costs: the on_read read fan-in and the lossy thinning of the
// hyper-followers' timelines; the celebrity's fan-out and the bots' write load both go.
#include "models/fanout/policies/on_read.hpp"

namespace fanout {
namespace {

class LossyOnRead final : public OnRead {
 public:
  using OnRead::OnRead;
  FanoutPolicy id() const override { return FanoutPolicy::LossyOnRead; }
  bool thins_pages() const override { return true; }
};

}  // namespace

std::unique_ptr<Policy> make_lossy_on_read_policy(const PolicyContext& ctx) {
  return std::make_unique<LossyOnRead>(ctx);
}

}  // namespace fanout
