#include "components/lossy/high_follow_cache.hpp"

#include <algorithm>
#include <string>

namespace lossy {

std::shared_ptr<const FollowSnapshot> FollowSnapshot::build(std::vector<FollowCountEntry> entries,
                                                            std::int64_t loaded_at_ns) {
  std::sort(entries.begin(), entries.end(),
            [](const FollowCountEntry& a, const FollowCountEntry& b) { return a.user < b.user; });
  for (std::size_t i = 1; i < entries.size(); ++i) {
    if (entries[i].user == entries[i - 1].user) {
      throw LossyConfigError("lossy: duplicate user " + std::to_string(entries[i].user) +
                             " in high-follow snapshot");
    }
  }
  return std::shared_ptr<const FollowSnapshot>(
      new FollowSnapshot(std::move(entries), loaded_at_ns));
}

std::uint64_t FollowSnapshot::follows(UserId u) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), u,
                             [](const FollowCountEntry& e, UserId v) { return e.user < v; });
  return (it != entries_.end() && it->user == u) ? it->follows : 0;
}

HighFollowCache::HighFollowCache(std::uint64_t reasonable_limit)
    : limit_(reasonable_limit), current_(FollowSnapshot::build({}, -1)) {
  (void)loss_factor(limit_, 0);  // validates the limit now, not at the first page
}

void HighFollowCache::load(std::vector<FollowCountEntry> entries, std::int64_t loaded_at_ns) {
  publish(FollowSnapshot::build(std::move(entries), loaded_at_ns));
}

void HighFollowCache::publish(std::shared_ptr<const FollowSnapshot> snapshot) {
  if (!snapshot) {
    throw LossyConfigError("lossy: publish of a null high-follow snapshot");
  }
  std::shared_ptr<const FollowSnapshot> old;
  {
    std::lock_guard lock(mu_);
    old = std::exchange(current_, std::move(snapshot));
    loads_.fetch_add(1);
  }
  // `old` is freed here, outside the lock (a reader may still hold it).
}

std::shared_ptr<const FollowSnapshot> HighFollowCache::snapshot() const {
  std::lock_guard lock(mu_);
  return current_;
}

double HighFollowCache::loss_factor_of(UserId u) const { return loss_factor(limit_, follows(u)); }

void filter_page(const HighFollowCache& cache, const UserId* page, std::size_t n, double page_r,
                 std::vector<UserId>& out) {
  if (!(page_r >= 0.0 && page_r < 1.0)) {
    throw LossyConfigError("lossy: page draw r must be in [0,1), got " + std::to_string(page_r));
  }
  std::shared_ptr<const FollowSnapshot> set = cache.snapshot();  // one set for the whole page
  if (set->size() == 0) {
    out.insert(out.end(), page, page + n);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (keep_in_page(loss_factor(cache.reasonable_limit(), set->follows(page[i])), page_r)) {
      out.push_back(page[i]);
    }
  }
}

}  // namespace lossy
