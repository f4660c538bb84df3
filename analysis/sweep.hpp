#pragma once
// A sweep: one scenario, the cross product of --vary values (variants), each run once per seed.
// The order of runs is part of the contract — variant-major, seeds in the order given — because
// shards pick runs by index and merge must rebuild exactly the unsharded sweep.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/json.hpp"

namespace skysim::analysis {

// `--vary path=a,b,c`: one scenario parameter and the values it takes.
struct Vary {
  std::string path;
  std::vector<std::string> values;
};

using Override = std::pair<std::string, std::string>;  // (path, value) for `--set path=value`

struct Variant {
  int index = 0;
  std::vector<Override> overrides;  // one per Vary, in --vary order (or a named variant's own)
  std::string name;                 // a --variant's name; empty for --vary variants
  std::string label() const;        // the name, else "path=a path2=x", or "base"
};

// `--variant "name: path=v path2=w"`: one variant that changes several parameters at once
// ("limit 50" vs "count-only logging" are different parameters, not values of one).
struct NamedVariant {
  std::string name;
  std::vector<Override> overrides;  // may be empty: the scenario as written
};

// One simulation: a variant and a seed; `index` is its place in the sweep order.
struct RunSpec {
  int index = 0;
  int variant = 0;
  std::uint64_t seed = 0;
};

// `--shard i/n` (1-based i): the runs whose index ≡ i - 1 (mod n).
struct Shard {
  int index = 1;
  int count = 1;
  bool contains(int run_index) const { return run_index % count == index - 1; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

struct SweepSpec {
  std::string scenario;              // as given on the command line (used in reproducers)
  std::vector<Vary> vary;
  std::vector<NamedVariant> named;   // --variant, in the order given; excludes --vary
  std::vector<std::uint64_t> seeds;  // in the order given
  std::vector<std::string> metrics;  // --metric filter; empty = every metric the runs report
  // --set path=value: applied to every run, before the variant's own overrides (which win on
  // the same path), so a compare can hold a parameter fixed without editing the file.
  std::vector<Override> sets;
  std::string until;  // --until DATE or offset: every run stops there; empty = the full run
  // --fork-at DATE: variants branch from the as-was run at this instant (analysis/fork.hpp);
  // empty = every run starts from time 0. Part of the sweep's identity, so merge checks it.
  std::string fork_at;

  std::vector<Variant> variants() const;  // first --vary varies slowest
  std::vector<RunSpec> runs() const;      // variant-major, then seeds
  Variant variant(int index) const;
  // What a run of this variant passes as --set: the sweep's sets, then the variant's.
  std::vector<Override> run_overrides(int variant_index) const;

  // Self-describing form carried on every shard line; merge checks all lines agree on it.
  Json to_json() const;
  static SweepSpec from_json(const Json& j);
};

// A --set list as JSON, [[path, value], ...], and back (throws JsonError naming `what`).
Json overrides_json(const std::vector<Override>& overrides);
std::vector<Override> overrides_from_json(const Json& j, const std::string& what);

// Parsers for the command-line forms; each throws std::invalid_argument naming the input.
Vary parse_vary(std::string_view text);                      // "path=a,b,c"
NamedVariant parse_variant(std::string_view text);           // "name: path=v path2=w"
std::vector<std::uint64_t> parse_seeds(std::string_view text);  // "1..32", "7", "1,5,9", "1..4,9"
Shard parse_shard(std::string_view text);                    // "2/3"

// One command line that replays a run on its own, e.g.
// "skysim run fanout.yaml --seed 7 --set fanout.policy=lossy".
std::string reproducer(const SweepSpec& spec, const RunSpec& run);

// Quote a word for a POSIX shell only when it needs it.
std::string shell_word(std::string_view word);

}  // namespace skysim::analysis
