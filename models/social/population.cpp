#include "models/social/population.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace social {
namespace {

// Vose's alias table: O(1) draws from a fixed discrete distribution.
class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& w) : slot_(w.size()) {
    const std::size_t n = w.size();
    double sum = 0;
    for (double x : w) {
      sum += x;
    }
    std::vector<double> scaled(n);
    std::vector<std::uint32_t> small;
    std::vector<std::uint32_t> large;
    for (std::size_t i = 0; i < n; ++i) {
      scaled[i] = w[i] * static_cast<double>(n) / sum;
      (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
    }
    while (!small.empty() && !large.empty()) {
      std::uint32_t s = small.back();
      small.pop_back();
      std::uint32_t l = large.back();
      slot_[s].prob = scaled[s];
      slot_[s].alias = l;
      scaled[l] = (scaled[l] + scaled[s]) - 1.0;
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (std::uint32_t i : large) {
      slot_[i].prob = 1.0;
    }
    for (std::uint32_t i : small) {
      slot_[i].prob = 1.0;
    }
  }
  std::uint32_t draw(sim::Rng& rng) const {
    auto i = static_cast<std::uint32_t>(rng.uniform_int(0, static_cast<std::int64_t>(slot_.size()) - 1));
    const Slot& s = slot_[i];
    __builtin_prefetch(&s);  // the slot's miss overlaps the second draw
    return rng.uniform01() < s.prob ? i : s.alias;
  }

 private:
  // prob and alias side by side: a draw at 2M users misses the cache once, not twice.
  struct Slot {
    double prob = 0;
    std::uint32_t alias = 0;
  };
  std::vector<Slot> slot_;
};

// Knuth's selection sampling: exactly k of the ids [0, n) except `skip`, in ascending order.
template <class F>
void select_k(std::uint32_t n, std::uint32_t k, std::uint32_t skip, sim::Rng& rng, F&& take) {
  std::uint32_t pool = n - (skip < n ? 1 : 0);
  std::uint32_t needed = k;
  for (std::uint32_t u = 0; u < n && needed > 0; ++u) {
    if (u == skip) {
      continue;
    }
    if (rng.uniform01() * pool < needed) {
      take(u);
      --needed;
    }
    --pool;
  }
}

// Exactly k distinct followees of u among [0, n) \ {u}: popularity picks first (the shape of
// whom people follow), at most 2k + 16 of them, so a heavy user whose k reaches deep into the
// Zipf ranks does not loop on repeats of the top ones; the rest by one selection-sampling pass
// over the ids not yet taken. mark[v] == u + 1 records "taken by u" without clearing per user.
// A user with few follows (the Pareto body: k <= kScanFollows) checks `mine` itself instead of
// mark[] -- the same set (mark[v] == u + 1 iff v is in mine), without a cache miss into the 2M
// marks per draw; no other user reads u's stamp.
constexpr std::uint32_t kScanFollows = 32;

void draw_exact(UserId u, std::uint32_t k, std::uint32_t n, const AliasTable& popularity,
                sim::Rng& rng, std::vector<std::uint32_t>& mark, std::vector<UserId>& mine) {
  const std::uint32_t stamp = u + 1;
  const std::uint64_t budget = 2ULL * k + 16;
  if (k <= kScanFollows) {
    for (std::uint64_t tries = 0; mine.size() < k && tries < budget; ++tries) {
      const UserId v = popularity.draw(rng);
      if (v != u && std::find(mine.begin(), mine.end(), v) == mine.end()) {
        mine.push_back(v);
      }
    }
    if (mine.size() < k) {
      for (UserId v : mine) mark[v] = stamp;  // the selection pass below reads marks
    }
  } else {
    for (std::uint64_t tries = 0; mine.size() < k && tries < budget; ++tries) {
      const UserId v = popularity.draw(rng);
      if (v != u && mark[v] != stamp) {
        mark[v] = stamp;
        mine.push_back(v);
      }
    }
  }
  if (mine.size() == k) {
    return;
  }
  std::uint64_t pool = static_cast<std::uint64_t>(n) - 1 - mine.size();
  std::uint64_t needed = k - mine.size();
  for (UserId v = 0; v < n && needed > 0; ++v) {
    if (v == u || mark[v] == stamp) {
      continue;
    }
    if (rng.uniform01() * static_cast<double>(pool) < static_cast<double>(needed)) {
      mark[v] = stamp;
      mine.push_back(v);
      --needed;
    }
    --pool;
  }
}

}  // namespace

double follow_count_cdf(const PopulationSpec& spec, double k) {
  const double cap = std::min<double>(spec.max_follows, spec.users - 1.0);
  if (k >= cap) {
    return 1.0;
  }
  const double x_m = spec.mean_follows * (spec.follows_alpha - 1.0) / spec.follows_alpha;
  const double x = std::floor(k) + 0.5;  // K <= k  <=>  X < floor(k) + 0.5
  return x <= x_m ? 0.0 : 1.0 - std::pow(x_m / x, spec.follows_alpha);
}

void PopulationSpec::validate() const {
  if (users < 2) {
    throw std::invalid_argument("social: population needs >= 2 users");
  }
  if (!(follows_alpha > 1.0)) {
    throw std::invalid_argument("social: follows_alpha must be > 1 (finite mean)");
  }
  if (!(mean_follows >= 1.0) || max_follows == 0) {
    throw std::invalid_argument("social: mean_follows must be >= 1 and max_follows >= 1");
  }
  if (!(popularity_zipf_s >= 0.0)) {
    throw std::invalid_argument("social: popularity_zipf_s must be >= 0");
  }
  for (const NamedAccount& c : celebrities) {
    if (c.count > users) {
      throw std::invalid_argument("social: celebrity '" + c.name + "' wants " +
                                  std::to_string(c.count) + " followers but only " +
                                  std::to_string(users) + " ordinary users exist");
    }
  }
  for (const NamedAccount& b : bots) {
    if (b.count > users + celebrities.size()) {
      throw std::invalid_argument("social: bot '" + b.name + "' wants to follow " +
                                  std::to_string(b.count) + " accounts, more than exist");
    }
  }
}

FollowGraph build_population(const PopulationSpec& spec, sim::Rng& rng) {
  spec.validate();
  const std::uint32_t n = spec.users;
  const auto n_celebs = static_cast<std::uint32_t>(spec.celebrities.size());
  const std::uint32_t total = n + n_celebs + static_cast<std::uint32_t>(spec.bots.size());
  // Popularity: a random ranking, weight 1/rank^s.
  std::vector<std::uint32_t> rank_of(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    rank_of[i] = i;
  }
  for (std::uint32_t i = n - 1; i > 0; --i) {  // Fisher-Yates with the stream
    std::swap(rank_of[i], rank_of[static_cast<std::uint32_t>(rng.uniform_int(0, i))]);
  }
  std::vector<double> weight(n);
  for (std::uint32_t u = 0; u < n; ++u) {
    weight[u] = 1.0 / std::pow(static_cast<double>(rank_of[u]) + 1.0, spec.popularity_zipf_s);
  }
  AliasTable popularity(weight);
  std::vector<double>().swap(weight);
  std::vector<std::uint32_t>().swap(rank_of);

  const double x_m = spec.mean_follows * (spec.follows_alpha - 1.0) / spec.follows_alpha;
  std::vector<FollowEdge> edges;
  edges.reserve(static_cast<std::size_t>(spec.mean_follows * n * 1.05));
  std::vector<UserId> mine;
  std::vector<std::uint32_t> mark(spec.exact_follow_counts ? n : 0, 0);  // u + 1: u follows it
  const std::uint32_t cap = std::min(spec.max_follows, n - 1);
  for (UserId u = 0; u < n; ++u) {
    auto k = static_cast<std::uint32_t>(
        std::min<double>(std::floor(rng.pareto(x_m, spec.follows_alpha) + 0.5), cap));
    mine.clear();
    if (spec.exact_follow_counts) {
      draw_exact(u, k, n, popularity, rng, mark, mine);
    } else {
      for (std::uint32_t i = 0; i < k; ++i) {
        UserId v = popularity.draw(rng);
        if (v != u) {
          mine.push_back(v);
        }
      }
    }
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    for (UserId v : mine) {
      edges.emplace_back(u, v);
    }
  }
  for (std::uint32_t c = 0; c < n_celebs; ++c) {
    const UserId celeb = n + c;
    // Followers not already following through the popularity draw: edges are distinct.
    select_k(n, spec.celebrities[c].count, celeb, rng,
             [&](UserId f) { edges.emplace_back(f, celeb); });
  }
  for (std::uint32_t b = 0; b < spec.bots.size(); ++b) {
    const UserId bot = n + n_celebs + b;
    std::uint32_t k = spec.bots[b].count;
    if (spec.bots_follow_celebrities) {
      const std::uint32_t c = std::min(k, n_celebs);
      for (std::uint32_t i = 0; i < c; ++i) {
        edges.emplace_back(bot, n + i);
      }
      select_k(n, k - c, bot, rng, [&](UserId v) { edges.emplace_back(bot, v); });
    } else {
      select_k(n + n_celebs, k, bot, rng, [&](UserId v) { edges.emplace_back(bot, v); });
    }
  }
  FollowGraph g(total, std::move(edges));
  for (std::uint32_t c = 0; c < n_celebs; ++c) {
    g.name(n + c, spec.celebrities[c].name);
  }
  for (std::uint32_t b = 0; b < spec.bots.size(); ++b) {
    g.name(n + n_celebs + b, spec.bots[b].name);
  }
  return g;
}

FollowGraph load_edge_list(const std::string& path, std::uint32_t users) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("social: cannot open edge list '" + path + "'");
  }
  std::vector<FollowEdge> edges;
  std::string line;
  std::uint64_t max_id = 0;
  for (std::size_t lineno = 1; std::getline(in, line); ++lineno) {
    if (auto hash = line.find('#'); hash != std::string::npos) {
      line.resize(hash);
    }
    std::istringstream ls(line);
    std::int64_t a = 0;
    std::int64_t b = 0;
    if (!(ls >> a)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) {
        continue;
      }
      throw std::invalid_argument(path + ":" + std::to_string(lineno) +
                                  ": expected 'follower followee', got '" + line + "'");
    }
    std::string rest;
    if (!(ls >> b) || (ls >> rest) || a < 0 || b < 0 || a >= UINT32_MAX || b >= UINT32_MAX) {
      throw std::invalid_argument(path + ":" + std::to_string(lineno) +
                                  ": expected two ids in [0, 2^32-1), got '" + line + "'");
    }
    max_id = std::max<std::uint64_t>(max_id, static_cast<std::uint64_t>(std::max(a, b)));
    edges.emplace_back(static_cast<UserId>(a), static_cast<UserId>(b));
  }
  const std::uint32_t n = users ? users : static_cast<std::uint32_t>(edges.empty() ? 0 : max_id + 1);
  return FollowGraph(n, std::move(edges));
}

}  // namespace social
