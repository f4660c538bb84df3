#pragma once
// YAML anchors and aliases, made safe to override.
//
// yaml-cpp loads `*name` as the very node `&name` marked: one object reachable by two paths. A
// write through one path (`--set`, a fork's change) then lands in both, so a counterfactual on
// `datacenters.west...` silently changes the east too. `unshare_aliases` gives every alias use a
// copy of its own before anything writes into the document; `AliasIndex` remembers, from the
// parser's events, where each alias was used and where its anchor is, so an error inside a copied
// block can point at both (a copy has no position of its own in the file).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace skysim::scenarios {

struct AliasUse {
  std::vector<std::string> segments;  // document path of the use: keys and list indices
  std::string path;                   // the same, joined by dots
  YAML::Mark use;                     // where `*name` stands
  std::string anchor;                 // name
  std::string anchor_path;            // where `&name` stands, as a document path
  YAML::Mark anchor_mark;
};

struct AliasProblem {
  std::optional<YAML::Mark> at;
  std::string message;
};

class AliasIndex {
 public:
  // Reads the text's event stream (the text must already parse). `max_nodes` bounds the document
  // once its aliases are expanded, so nested aliases cannot multiply it past what the checker
  // would walk ("billion laughs").
  static AliasIndex scan(const std::string& text, std::uint64_t max_nodes);

  // Alias uses in document order (an anchor always comes before its uses).
  const std::vector<AliasUse>& uses() const { return uses_; }
  // Problems found while scanning: an alias inside its own anchor, an expansion too large.
  const std::vector<AliasProblem>& problems() const { return problems_; }
  std::uint64_t expanded_nodes() const { return expanded_nodes_; }
  std::size_t max_depth() const { return max_depth_; }  // of collections, as written

  // The innermost alias use whose copied block holds `path` (the use itself included).
  const AliasUse* use_holding(const std::string& path) const;
  // Where in the file the node at `path` was written: through alias uses to their anchors.
  std::optional<YAML::Mark> mark_of(const std::string& path) const;

 private:
  std::vector<AliasUse> uses_;
  std::map<std::string, YAML::Mark> marks_;  // document path -> position of the node written there
  std::vector<AliasProblem> problems_;
  std::uint64_t expanded_nodes_ = 0;
  std::size_t max_depth_ = 0;
  friend class AliasScanner;
};

// Returns `root` with every alias use replaced by a fresh copy, so no node is reachable by two
// paths. Nodes outside alias uses keep their positions; the containers on the way to a use are
// rebuilt (they then have no position: `AliasIndex::mark_of` has it).
YAML::Node unshare_aliases(const YAML::Node& root, const AliasIndex& index);

}  // namespace skysim::scenarios
