#pragma once
// on_read: hybrid fan-out-on-read (§8.5). Authors with >= on_read_threshold followers are not
// fanned out: a post writes only the author's recent-post list, and every read of a follower's
// timeline also reads the list of each such author it follows. Costs: reads per timeline load
// (1 + followed on-read authors) and the read latency of the slowest of them; the hot list
// partition is what hot-key caching (§9) addresses.
#include "models/fanout/policies/policy.hpp"

namespace fanout {

class OnRead : public Policy {
 public:
  explicit OnRead(const PolicyContext& ctx)
      : Policy(ctx.lists_base),
        graph_(ctx.graph),
        threshold_(ctx.on_read_threshold),
        page_rows_(ctx.read_page_rows) {}
  FanoutPolicy id() const override { return FanoutPolicy::OnRead; }
  bool merged_at_read(std::uint32_t author) const override {
    return graph_.follower_count(author) >= threshold_;
  }
  bool thins_pages() const override { return false; }
  void read_keys(std::uint32_t reader, std::vector<ReadKey>& keys) const override;

 protected:
  const social::FollowGraph& graph_;
  std::uint32_t threshold_;
  std::uint32_t page_rows_;
};

}  // namespace fanout
