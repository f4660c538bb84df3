#include "models/fanout/policies/policy.hpp"

#include <stdexcept>
#include <string>

namespace fanout {

namespace {
struct Named {
  FanoutPolicy id;
  std::string_view name;
};
constexpr Named kPolicies[] = {{FanoutPolicy::Full, "full"},
                               {FanoutPolicy::Lossy, "lossy"},
                               {FanoutPolicy::OnRead, "on_read"},
                               {FanoutPolicy::LossyOnRead, "lossy_on_read"},
                               {FanoutPolicy::PerShard, "per_shard"},
                               {FanoutPolicy::Split, "split"},
                               {FanoutPolicy::ShardQueue, "shard_queue"},
                               {FanoutPolicy::DetectBlock, "detect_block"},
                               {FanoutPolicy::DetectLimit, "detect_limit"},
                               {FanoutPolicy::ShuffleRetry, "shuffle_retry"},
                               {FanoutPolicy::HotKey, "hotkey"}};
}  // namespace

FanoutPolicy parse_fanout_policy(std::string_view s) {
  for (const Named& n : kPolicies) {
    if (n.name == s) {
      return n.id;
    }
  }
  throw std::invalid_argument("fanout: unknown policy '" + std::string(s) +
                              "' (expected full, lossy, on_read, lossy_on_read, per_shard, split, "
                              "shard_queue, detect_block, detect_limit, shuffle_retry or "
                              "hotkey)");
}

std::string_view policy_name(FanoutPolicy p) {
  for (const Named& n : kPolicies) {
    if (n.id == p) {
      return n.name;
    }
  }
  return "?";
}

bool policy_uses_on_read_threshold(FanoutPolicy p) {
  return p == FanoutPolicy::OnRead || p == FanoutPolicy::LossyOnRead ||
         p == FanoutPolicy::PerShard;
}

void Policy::merged_write_keys(std::uint32_t author, std::vector<std::uint32_t>& keys) const {
  keys.push_back(lists_base_ + author);
}

std::unique_ptr<Policy> make_policy(FanoutPolicy p, const PolicyContext& ctx) {
  switch (p) {
    case FanoutPolicy::Full:
      return make_full_policy(ctx);
    case FanoutPolicy::Lossy:
      return make_lossy_policy(ctx);
    case FanoutPolicy::OnRead:
      return make_on_read_policy(ctx);
    case FanoutPolicy::LossyOnRead:
      return make_lossy_on_read_policy(ctx);
    case FanoutPolicy::PerShard:
      return make_per_shard_policy(ctx);
    case FanoutPolicy::Split:
      return make_split_policy(ctx);
    case FanoutPolicy::ShardQueue:
      return make_shard_queue_policy(ctx);
    case FanoutPolicy::DetectBlock:
    case FanoutPolicy::DetectLimit:
      return make_detect_policy(p, ctx);
    case FanoutPolicy::ShuffleRetry:
      return make_shuffle_retry_policy(ctx);
    case FanoutPolicy::HotKey:
      return make_hotkey_policy(ctx);
  }
  throw std::invalid_argument("fanout: policy id out of range");
}

}  // namespace fanout
