#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_01.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "components/lossy/high_follow_cache.hpp"
#include "components/lossy/loss_factor.hpp"
#include "components/lossy/page_filter.hpp"

using namespace lossy;

TEST_CASE("loss_factor follows the write-up's examples") {
  CHECK(loss_factor(2000, 4000) == Approx(0.5));
  CHECK(loss_factor(2000, 8000) == Approx(0.25));
  CHECK(loss_factor(2000, 2000) == 1.0);
  CHECK(loss_factor(2000, 10) == 1.0);
  CHECK(loss_factor(2000, 0) == 1.0);
  CHECK_THROWS_AS(loss_factor(0, 10), LossyConfigError);
}

TEST_CASE("a user is skipped iff loss_factor < r") {
  CHECK(keep_in_page(0.5, 0.49));
  CHECK(keep_in_page(0.5, 0.5));  // equal is not smaller: kept
  CHECK_FALSE(keep_in_page(0.5, 0.51));
  CHECK(keep_in_page(1.0, 0.999999));
}

TEST_CASE("high-follow cache: absent users are below the limit; duplicates rejected") {
  HighFollowCache cache(2000);
  cache.load({{7, 4000}, {3, 300000}, {9, 1500}}, 30);
  CHECK(cache.follows(7) == 4000);
  CHECK(cache.follows(8) == 0);
  CHECK(cache.loss_factor_of(7) == Approx(0.5));
  CHECK(cache.loss_factor_of(3) == Approx(2000.0 / 300000));
  CHECK(cache.loss_factor_of(9) == 1.0);
  CHECK(cache.loss_factor_of(8) == 1.0);
  CHECK(cache.loaded_at_ns() == 30);
  CHECK_THROWS_AS(cache.load({{1, 5000}, {1, 6000}}, 60), LossyConfigError);
  CHECK_THROWS_AS(HighFollowCache(0), LossyConfigError);
}

TEST_CASE("filter_page uses one draw for the whole page (correlated drops)") {
  HighFollowCache cache(2000);
  std::vector<FollowCountEntry> entries;
  std::vector<UserId> page;
  for (UserId u = 0; u < 100; ++u) {
    page.push_back(u);
    if (u % 2 == 0) {
      entries.push_back({u, 4000});  // factor 0.5
    }
  }
  cache.load(entries, 0);
  std::vector<UserId> out;
  filter_page(cache, page.data(), page.size(), 0.7, out);
  CHECK(out.size() == 50);  // every heavy follower dropped together
  for (UserId u : out) {
    CHECK(u % 2 == 1);
  }
  out.clear();
  filter_page(cache, page.data(), page.size(), 0.3, out);
  CHECK(out.size() == 100);
  CHECK_THROWS_AS(filter_page(cache, page.data(), page.size(), 1.0, out), LossyConfigError);
}

TEST_CASE("a 4,000-follow user with limit 2,000 keeps about half its writes") {
  // Drops are per page, not per write: with P pages the kept count is Binomial(P, 0.5)
  // pages' worth. 4,000 pages (one write each) -> sd = sqrt(4000 * 0.25) ~= 31.6.
  HighFollowCache cache(2000);
  cache.load({{42, 4000}}, 0);
  boost::random::mt19937_64 rng(2025);
  boost::random::uniform_01<double> u01;
  const int pages = 4000;
  int kept = 0;
  for (int p = 0; p < pages; ++p) {
    std::vector<UserId> out;
    UserId me = 42;
    filter_page(cache, &me, 1, u01(rng), out);
    kept += static_cast<int>(out.size());
  }
  const double sd = std::sqrt(pages * 0.25);
  CHECK(std::abs(kept - pages / 2) < 4 * sd);
}

TEST_CASE("a page's keep probabilities in one call equal the per-user ones, bit for bit") {
  HighFollowCache cache(2000);
  cache.load({{7, 4000}, {3, 300000}, {9, 1500}, {11, 2001}}, 0);
  const CacheFilter filter(cache);
  const std::vector<UserId> page = {0, 3, 7, 8, 9, 11, 3, 12};
  std::vector<double> q(page.size(), -1.0);
  filter.keep_probabilities(page.data(), page.size(), q.data());
  for (std::size_t i = 0; i < page.size(); ++i) {
    CHECK(q[i] == filter.keep_probability(page[i]));  // exact: the audit's bound sums them
  }
  CHECK(q[1] == 2000.0 / 300000);
  CHECK(q[0] == 1.0);
}
