// shard_queue: the fan-out writes go through a queue partitioned by shard, each partition
// drained under its own rate limit and in-flight cap (models/fanout/shard_queue.hpp), and the
// next page of followers is fetched as soon as a page is queued -- the fan-out write-up's
// discussion: "page fetches should not wait for every item of the page; partition the queue by
// shard to slow the work down". Every follower is still written (as full). Costs: the queueing
// delay of each write (`fanout.queue_delay_*`), and a post that ends with its slowest shard's
// queue instead of with the sum of its pages' slowest writes.
#include "models/fanout/policies/policy.hpp"

namespace fanout {
namespace {

class ShardQueue final : public EveryFollower {
 public:
  FanoutPolicy id() const override { return FanoutPolicy::ShardQueue; }
  bool queues_by_shard() const override { return true; }
};

}  // namespace

std::unique_ptr<Policy> make_shard_queue_policy(const PolicyContext&) {
  return std::make_unique<ShardQueue>();
}

}  // namespace fanout
