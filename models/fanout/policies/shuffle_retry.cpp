// shuffle_retry: shuffle sharding with a retry to another replica of the shuffle set (AWS
// Builders' Library, domain.md §8.4: "clients must retry on the other workers of their set").
// Every timeline's replicas are its own pseudo-random set of RF shards (placement
// shuffle_shard, models/scylla/shuffle_shard.hpp), and a read whose CL replies have not all
// arrived retry_after after it was sent also goes to the set's remaining replica; the first CL
// replies answer it (the driver's speculative retry, models/scylla/cluster.cpp, standing in for
// the client's retry: the same request to the same set member). Writes are full fan-out.
// Costs: the extra reads (`fanout.retries_per_read`). Claim tested: a hot tenant slows only
// the readers whose set it shares, and they escape through the retry.
#include <stdexcept>

#include "models/fanout/policies/policy.hpp"
#include "models/scylla/cluster.hpp"

namespace fanout {
namespace {

class ShuffleRetry final : public EveryFollower {
 public:
  FanoutPolicy id() const override { return FanoutPolicy::ShuffleRetry; }
};

}  // namespace

std::unique_ptr<Policy> make_shuffle_retry_policy(const PolicyContext&) {
  return std::make_unique<ShuffleRetry>();
}

void configure_cluster_for(FanoutPolicy p, sim::Duration retry_after, scylla::ScyllaConfig& sc) {
  if (p != FanoutPolicy::ShuffleRetry) {
    return;
  }
  if (retry_after <= 0) {
    throw std::invalid_argument("fanout: shuffle_retry needs retry_after > 0");
  }
  sc.placement = scylla::Placement::ShuffleShard;
  sc.speculative_retry = retry_after;
}

std::string cluster_mismatch(FanoutPolicy p, const scylla::ScyllaConfig& sc) {
  if (p == FanoutPolicy::ShuffleRetry &&
      (sc.placement != scylla::Placement::ShuffleShard || sc.speculative_retry <= 0)) {
    return "fanout: policy shuffle_retry needs the cluster built with placement shuffle_shard "
           "and a read retry (configure_cluster_for)";
  }
  return "";
}

}  // namespace fanout
