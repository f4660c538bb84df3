// split: a user's timeline is split into one sub-timeline per split_follows (1,000) follows,
// each its own partition, and a read merges them (the fan-out write-up's discussion: "one
// timeline per 1,000 follows, merged by the client"). A post by author a into follower f goes to
// f's sub-timeline mix(a) mod parts(f), so a hyper-follower's incoming rows spread over
// parts(f) partitions -- placed on different shards by the ring -- instead of one. Costs: every
// load of a split timeline reads all its parts, each a page of rows (the merge cannot know
// which part holds the newest rows), so reads, rows and merges per load grow with follows.
//
// Layout: models/fanout/split_timelines.hpp (shared with the composition's steps).
#include "models/fanout/policies/policy.hpp"
#include "models/fanout/split_timelines.hpp"

namespace fanout {
namespace {

class Split final : public EveryFollower {
 public:
  explicit Split(const PolicyContext& ctx)
      : EveryFollower(ctx.lists_base),
        page_rows_(ctx.read_page_rows),
        layout_(ctx.graph, ctx.split_follows) {}

  FanoutPolicy id() const override { return FanoutPolicy::Split; }

  std::uint32_t timeline_partition(std::uint32_t follower, std::uint32_t author) const override {
    return layout_.partition(follower, author);
  }
  void timeline_partitions(std::uint32_t user, std::vector<std::uint32_t>& out) const override {
    out.push_back(user);
    layout_.append_extra(user, out);
  }
  // The reader's own part 0 is added by the service; the merge reads a page from every other.
  void read_keys(std::uint32_t reader, std::vector<ReadKey>& keys) const override {
    for (std::uint32_t p = layout_.extra_begin(reader); p < layout_.extra_end(reader); ++p) {
      keys.push_back({p, page_rows_});
    }
  }

 private:
  std::uint32_t page_rows_;
  SplitTimelines layout_;
};

}  // namespace

std::unique_ptr<Policy> make_split_policy(const PolicyContext& ctx) {
  return std::make_unique<Split>(ctx);
}

}  // namespace fanout
