#pragma once
// The lossy component's page decision behind an interface, so a caller (the fan-out service)
// can be given another filter: a test double that keeps everyone shows which gains are the
// component's own. The production filter is CacheFilter: filter_page() over a HighFollowCache.
#include <cstddef>
#include <vector>

#include "components/lossy/high_follow_cache.hpp"

namespace lossy {

class PageFilter {
 public:
  virtual ~PageFilter() = default;
  // Appends the kept users of `page` (n users, in order) to `out`; `page_r` is the page's one
  // draw in [0,1), made just before the page is written.
  virtual void filter(const UserId* page, std::size_t n, double page_r,
                      std::vector<UserId>& out) const = 0;
  // The probability filter() keeps `u` over r uniform in [0,1): what a caller that must start
  // in steady state (a partition written for a long time before the run) assumes it kept.
  virtual double keep_probability(UserId u) const = 0;
};

// Production: Bluesky's rule against the in-memory high-follow set.
class CacheFilter final : public PageFilter {
 public:
  explicit CacheFilter(const HighFollowCache& cache) : cache_(cache) {}
  void filter(const UserId* page, std::size_t n, double page_r,
              std::vector<UserId>& out) const override {
    filter_page(cache_, page, n, page_r, out);
  }
  // keep_in_page keeps u iff loss_factor >= r: probability loss_factor for r ~ U[0,1).
  double keep_probability(UserId u) const override { return cache_.loss_factor_of(u); }

 private:
  const HighFollowCache& cache_;
};

}  // namespace lossy
