#pragma once
// summary.json's `stream_draws`, written compactly: a model that names one stream per spawned
// process ("east/interner/0/worker/11726") leaves thousands of them (a 10 s fuzz-interning run:
// ~12,000 worker streams, 400 KB of the summary.json). Streams that differ only in a trailing
// number form a family; a family of more than kFoldAbove streams is written as one entry
// "PREFIX*" holding its stream count, its total draws and a digest of every member's name and
// draw count, so a change in any member's draws still shows (and names the family) when two
// summaries are compared. The unseed itself is computed from every stream (Simulation::unseed),
// not from this listing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace skysim::scenarios {

struct StreamFamily {
  std::uint64_t streams = 0;
  std::uint64_t draws = 0;
  std::uint64_t digest = 0;  // over (name, draws) of every member, in name order
};

// One entry of the listing: a single stream's draw count, or a folded family.
struct StreamDrawEntry {
  std::string name;  // the stream's name, or "PREFIX*" for a family
  std::variant<std::uint64_t, StreamFamily> value;
};

inline constexpr std::size_t kFoldAbove = 32;

// `draws` by stream name (Simulation::stream_draws); the result is in name order.
std::vector<StreamDrawEntry> fold_stream_families(
    const std::vector<std::pair<std::string, std::uint64_t>>& draws);

}  // namespace skysim::scenarios
