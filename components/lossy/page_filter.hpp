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
  // keep_probability of each of `page`'s n users into out[0..n): what a caller auditing a
  // whole page asks, in one call (CacheFilter reads its set once for the page).
  virtual void keep_probabilities(const UserId* page, std::size_t n, double* out) const {
    for (std::size_t i = 0; i < n; ++i) out[i] = keep_probability(page[i]);
  }
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
  void keep_probabilities(const UserId* page, std::size_t n, double* out) const override {
    const auto set = cache_.snapshot();  // as loss_factor_of, one set for the whole page
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = loss_factor(cache_.reasonable_limit(), set->follows(page[i]));
    }
  }

 private:
  const HighFollowCache& cache_;
};

}  // namespace lossy
