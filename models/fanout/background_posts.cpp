#include "models/fanout/background_posts.hpp"

#include <stdexcept>


namespace fanout {

BackgroundPosts::BackgroundPosts(const BackgroundPostsSetup& setup, std::uint32_t min_follows,
                                 double posts_per_followed_s)
    : route_(setup.route),
      post_rng_(setup.sim.stream(setup.post_stream)),
      page_rng_(setup.sim.stream(setup.page_r_stream)),
      offered_(setup.graph.users(), 0),
      delivered_(setup.graph.users(), 0) {
  if (!(posts_per_followed_s > 0)) {
    throw std::invalid_argument("fanout: posts_per_followed_s must be > 0");
  }
  const social::FollowGraph& g = setup.graph;
  std::vector<std::uint8_t> hyper(g.users(), 0);
  std::vector<std::uint8_t> followed(g.users(), 0);
  std::vector<std::uint32_t> parts;
  for (social::UserId u = 0; u < g.users(); ++u) {
    const std::uint32_t f = g.follow_count(u);
    if (f < min_follows || f == 0) {
      continue;
    }
    hyper[u] = 1;
    ++hyper_;
    for (social::UserId a : g.follows(u)) {
      followed[a] = 1;
    }
    const double keep = route_.keep_probability(u);
    // Split timelines: the rows spread evenly over the user's parts.
    parts.clear();
    route_.timeline_partitions(u, parts);
    for (std::uint32_t p : parts) {
      setup.cluster.add_fed_partition(p, f * posts_per_followed_s * keep /
                                             static_cast<double>(parts.size()));
    }
  }
  // Once per run: where each hyper-follower sits in each followed author's follower list.
  const auto packed = [](const Target& t) {
    return kInline | static_cast<std::uint64_t>(t.page) << 32 | t.user;
  };
  for (social::UserId a = 0; a < g.users(); ++a) {
    if (followed[a] == 0) {
      continue;
    }
    authors_.push_back(a);
    const auto followers = g.followers(a);
    targets_.clear();
    for (std::size_t i = 0; i < followers.size(); ++i) {
      if (hyper[followers[i]] != 0) {
        targets_.push_back({static_cast<std::uint32_t>(i / setup.page_size), followers[i]});
      }
    }
    if (followers.size() / setup.page_size >= (std::uint64_t{1} << 31)) {
      throw std::length_error("fanout: more than 2^31 pages of followers");  // users <= 1e9
    }
    Slot s;
    if (targets_.size() == 1 || targets_.size() == 2) {
      s.a = packed(targets_[0]);
      s.b = targets_.size() == 2 ? packed(targets_[1]) : 0;
    } else {
      s.a = more_.size();
      s.b = targets_.size();
      more_.insert(more_.end(), targets_.begin(), targets_.end());
    }
    slots_.push_back(s);
  }
  if (authors_.empty()) {
    return;  // no hyper-follower: nothing to post
  }
  // Every followed author posts at posts_per_followed_s: the superposition is Poisson at the
  // sum, each post by a uniformly chosen author; a hyper-follower following f of them gets
  // f x posts_per_followed_s rows/s offered.
  mean_gap_ns_ = 1e9 / (posts_per_followed_s * static_cast<double>(authors_.size()));
  actor_id = setup.sim.new_actor_id();
  kind = setup.sim.intern_kind("fanout.background_post");
  setup.sim.schedule_in(draw_gap(), *this);
  ahead_[0] = draw_post();
  ahead_[1] = draw_post();
}

sim::Duration BackgroundPosts::draw_gap() {
  return static_cast<sim::Duration>(post_rng_.exponential(mean_gap_ns_)) + 1;
}

BackgroundPosts::PostDraw BackgroundPosts::draw_post() {
  const auto author = static_cast<std::uint32_t>(
      post_rng_.uniform_int(0, static_cast<std::int64_t>(authors_.size()) - 1));
  return PostDraw{author, draw_gap()};  // author first: the stream's order
}

void BackgroundPosts::prefetch_targets(std::uint32_t author_index) const {
  const Slot& s = slots_[author_index];
  if ((s.a & kInline) == 0) {
    __builtin_prefetch(&more_[s.a]);
    return;
  }
  const auto user = static_cast<social::UserId>(s.a);
  __builtin_prefetch(&offered_[user], 1);
  __builtin_prefetch(&delivered_[user], 1);
}

void BackgroundPosts::on_event(sim::Simulation& sim) {
  const PostDraw post = ahead_[0];
  ahead_[0] = ahead_[1];
  ahead_[1] = draw_post();
  __builtin_prefetch(&slots_[ahead_[1].author]);
  prefetch_targets(ahead_[0].author);  // its slot was asked for one post ago
  fan_out(post.author);
  sim.schedule_in(post.gap, *this);
}

void BackgroundPosts::fan_out(std::uint32_t author_index) {
  ++posts_;
  const Slot s = slots_[author_index];
  const Target* targets = targets_.data();
  std::uint64_t end = 0;
  if ((s.a & kInline) != 0) {
    const auto unpack = [](std::uint64_t x) {
      return Target{static_cast<std::uint32_t>(x >> 32) & 0x7fffffffU,
                    static_cast<social::UserId>(x)};
    };
    targets_.resize(2);
    targets_[0] = unpack(s.a);
    if (s.b != 0) targets_[1] = unpack(s.b);
    targets = targets_.data();
    end = s.b != 0 ? 2 : 1;
  } else {
    targets = more_.data() + s.a;
    end = s.b;
  }
  for (std::uint64_t i = 0; i < end;) {
    // One page's hyper-followers, through the same decision as the celebrity post's page.
    const std::uint32_t page = targets[i].page;
    page_.clear();
    for (; i < end && targets[i].page == page; ++i) {
      page_.push_back(targets[i].user);
    }
    kept_.clear();
    route_.filter_page(page_.data(), page_.size(), page_rng_, kept_);
    for (social::UserId u : page_) {
      ++offered_[u];
    }
    offered_total_ += page_.size();
    for (social::UserId u : kept_) {
      ++delivered_[u];
      // Split timelines: into the part the author maps to (else the user's one partition).
      route_.write_row(route_.timeline_partition(u, authors_[author_index]));
    }
    delivered_total_ += kept_.size();
  }
}

}  // namespace fanout
