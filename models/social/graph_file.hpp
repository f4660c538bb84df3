#pragma once
// A drawn population saved to a file and read back, so that runs sharing a seed draw their
// follow graph once (docs/benchmarks.md, h-tablespeed): `skysim compare` runs every policy x
// load of one seed on the same graph, and drawing it (~2 s of 2.05M users / 13.6M edges) was
// ~20 % of each run. The file holds the two CSR structures exactly as built, so a graph read
// back is the graph drawn, bit for bit; it is keyed by the whole PopulationSpec and the seed,
// and a file for another key, truncated or unreadable is ignored (the graph is drawn instead).
//
// The cache is a directory named by $SKYSIM_GRAPH_CACHE; unset or empty: no cache (a plain
// `skysim run` draws as before). `skysim compare` sets it to a temporary directory of its own
// for its workers and removes it at the end, so a cached graph never outlives the binary that
// drew it. Files are native-endian: one machine's cache, not an exchange format.
#include <cstdint>
#include <optional>
#include <string>

#include "models/social/follow_graph.hpp"
#include "models/social/population.hpp"

namespace social {

// Every field of the spec and the seed, as text: two keys are equal iff the draws are.
std::string population_key(const PopulationSpec& spec, std::uint64_t seed);

// Writes g under `key` to path (through a temporary file renamed into place, so a reader never
// sees half a file, and two writers of the same key leave one whole file). Throws on I/O error.
void save_graph(const FollowGraph& g, const std::string& key, const std::string& path);

// The graph saved at path under exactly `key`; nullopt if there is none, it was saved for
// another key, or the file is short or malformed.
std::optional<FollowGraph> load_graph(const std::string& path, const std::string& key);

// build_population(spec, Rng(seed)), read from `dir` when a file for (spec, seed) is there and
// else drawn and saved there; dir "" = no cache. Saving is best effort (a full disk only costs
// the next run a draw).
FollowGraph cached_population(const PopulationSpec& spec, std::uint64_t seed,
                              const std::string& dir);

// $SKYSIM_GRAPH_CACHE, or "".
std::string graph_cache_dir();
inline constexpr const char* kGraphCacheEnv = "SKYSIM_GRAPH_CACHE";

}  // namespace social
