#include "models/fanout/instance_filter.hpp"

#include <stdexcept>

namespace fanout {

void InstanceFilterConfig::validate() const {
  if (reasonable_limit == 0) {
    throw std::invalid_argument("reasonable_limit: must be >= 1");
  }
  if (refresh <= 0 || redis_rtt < 0 || redis_rtt >= refresh) {
    throw std::invalid_argument("refresh: must be > 0 and longer than redis_rtt");
  }
}

InstanceFilter::InstanceFilter(sim::Simulation& sim, const social::FollowGraph& graph,
                               InstanceFilterConfig cfg, FollowCountStore* shared)
    : graph_(graph),
      cfg_((cfg.validate(), cfg)),
      own_store_(cfg_.redis_rtt),
      store_(shared ? *shared : own_store_),
      cache_(cfg_.reasonable_limit),
      refresher_(sim, store_, cache_, cfg_.refresh, cfg_.redis_rtt),
      filter_(cache_),
      keep_bound_(graph.users()) {}

void InstanceFilter::start() {
  if (!cfg_.lossy) return;
  for (social::UserId u = 0; u < graph_.users(); ++u) {
    const std::uint32_t f = graph_.follow_count(u);
    if (f <= cfg_.reasonable_limit) continue;
    if (&store_ != &own_store_) {
      store_.zadd_nx(u, f);
    } else {
      store_.zadd(u, f);
    }
  }
  refresher_.start();
}

void InstanceFilter::filter_page(const social::UserId* page, std::size_t n, sim::Rng& page_r,
                                 std::vector<social::UserId>& out) {
  if (!cfg_.lossy) {
    out.insert(out.end(), page, page + n);
    return;
  }
  const std::size_t before = out.size();
  const lossy::PageFilter& decide =
      audit_ ? static_cast<const lossy::PageFilter&>(*audit_) : filter_;
  decide.filter(page, n, page_r.uniform01(), out);  // one draw per page (domain.md §8.3)
  keep_q_.resize(n);
  filter_.keep_probabilities(page, n, keep_q_.data());
  for (std::size_t i = 0; i < n; ++i) keep_bound_.addressed(page[i], keep_q_[i]);
  for (std::size_t i = before; i < out.size(); ++i) keep_bound_.kept(out[i]);
}

void InstanceFilter::audit_with(const FollowTruth& truth) {
  audit_ = std::make_unique<StalenessAudit>(
      filter_, [this] { return cache_.snapshot(); }, truth, cfg_.reasonable_limit);
}

}  // namespace fanout
