#include "scenarios/yaml_aliases.hpp"

#include <limits>
#include <sstream>

#include <yaml-cpp/eventhandler.h>

namespace skysim::scenarios {

namespace {

std::string joined(const std::vector<std::string>& segs) {
  std::string s;
  for (const auto& x : segs) s += (s.empty() ? "" : ".") + x;
  return s;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max()
                                                          : a + b;
}

std::string position(const YAML::Mark& m) {
  return std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

}  // namespace

// Follows the event stream with a stack of open collections, so every node's document path is
// known when it starts; sizes are counted as if every alias were written out in full.
class AliasScanner final : public YAML::EventHandler {
 public:
  AliasScanner(AliasIndex& out, std::uint64_t max_nodes) : out_(out), max_nodes_(max_nodes) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnAnchor(const YAML::Mark&, const std::string& name) override { pending_anchor_ = name; }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Place p = begin(mark);
    if (p.is_key) key_is_text(false);
    leaf(anchor, mark, p);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    Place p = begin(mark);
    if (p.is_key) {
      stack_.back().key = value;
      key_is_text(true);
    }
    leaf(anchor, mark, p);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Place p = begin(mark);
    if (p.is_key) key_is_text(false);
    if (anchor == 0 || anchor > anchors_.size()) {
      out_.problems_.push_back({mark, "alias to an unknown anchor"});
      add(1);
      return;
    }
    const Anchor& a = anchors_[anchor - 1];
    if (a.open) {
      out_.problems_.push_back({mark, "alias *" + a.name + " is used inside its own anchor (&" +
                                          a.name + " at line " + position(a.mark) +
                                          "): the block would contain itself"});
      add(1);
      return;
    }
    if (p.valid && !p.is_key) {
      out_.uses_.push_back({p.segments, joined(p.segments), mark, a.name, a.path, a.mark});
    }
    add(a.size);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapEnd() override { close(); }

  // After the last event: a document that aliases would blow past max_nodes is refused.
  void finish() {
    if (!out_.uses_.empty() && out_.expanded_nodes_ > max_nodes_) {
      out_.problems_.push_back({std::nullopt, "the document has " +
                               (out_.expanded_nodes_ == std::numeric_limits<std::uint64_t>::max()
                                    ? std::string("more than 2^64")
                                    : std::to_string(out_.expanded_nodes_)) +
                               " nodes once its aliases are written out (at most " +
                               std::to_string(max_nodes_) + ")"});
    }
  }

 private:
  struct Place {
    std::vector<std::string> segments;
    bool valid = true;    // false under a key that is not plain text (no path names it)
    bool is_key = false;  // this node is a map key, not a value
  };
  struct Frame {
    bool map = false;
    Place place;
    bool want_key = true;  // maps alternate key, value
    bool key_valid = true;
    std::string key;
    std::size_t index = 0;
    std::uint64_t size = 1;
    YAML::anchor_t anchor = 0;
  };
  struct Anchor {
    std::string name;
    std::string path;
    YAML::Mark mark;
    std::uint64_t size = 1;
    bool open = false;
  };

  Place begin(const YAML::Mark& mark) {
    Place p;
    if (!stack_.empty()) {
      Frame& top = stack_.back();
      p.segments = top.place.segments;
      p.valid = top.place.valid && !top.place.is_key;
      if (!top.map) {
        p.segments.push_back(std::to_string(top.index++));
      } else if (top.want_key) {
        top.want_key = false;
        p.is_key = true;
      } else {
        top.want_key = true;
        p.segments.push_back(top.key);
        p.valid = p.valid && top.key_valid;
      }
    }
    // Past max_nodes the checker refuses the document anyway: no need to hold every path.
    if (p.valid && !p.is_key && out_.marks_.size() < max_nodes_) {
      out_.marks_.emplace(joined(p.segments), mark);
    }
    return p;
  }
  void key_is_text(bool text) { stack_.back().key_valid = text; }

  void register_anchor(YAML::anchor_t anchor, const YAML::Mark& mark, const Place& p, bool open) {
    if (anchor == 0) return;
    // yaml-cpp numbers anchors 1, 2, ... in the order their `&name` appears.
    anchors_.resize(std::max<std::size_t>(anchors_.size(), anchor));
    Anchor& a = anchors_[anchor - 1];
    a.name = pending_anchor_.empty() ? "?" : pending_anchor_;
    a.path = p.valid ? joined(p.segments) : "?";
    a.mark = mark;
    a.open = open;
    pending_anchor_.clear();
  }
  void leaf(YAML::anchor_t anchor, const YAML::Mark& mark, const Place& p) {
    register_anchor(anchor, mark, p, false);
    add(1);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    Place p = begin(mark);
    if (p.is_key) key_is_text(false);
    register_anchor(anchor, mark, p, true);
    Frame f;
    f.map = map;
    f.place = std::move(p);
    f.anchor = anchor;
    stack_.push_back(std::move(f));
    out_.max_depth_ = std::max(out_.max_depth_, stack_.size());
  }
  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.anchor != 0) {
      anchors_[f.anchor - 1].open = false;
      anchors_[f.anchor - 1].size = f.size;
    }
    add(f.size);
  }
  void add(std::uint64_t n) {
    if (stack_.empty()) {
      out_.expanded_nodes_ = saturating_add(out_.expanded_nodes_, n);
    } else {
      stack_.back().size = saturating_add(stack_.back().size, n);
    }
  }

  AliasIndex& out_;
  std::uint64_t max_nodes_;
  std::vector<Frame> stack_;
  std::vector<Anchor> anchors_;
  std::string pending_anchor_;
};

AliasIndex AliasIndex::scan(const std::string& text, std::uint64_t max_nodes) {
  AliasIndex index;
  std::istringstream in(text);
  YAML::Parser parser(in);
  AliasScanner scanner(index, max_nodes);
  parser.HandleNextDocument(scanner);
  scanner.finish();
  return index;
}

const AliasUse* AliasIndex::use_holding(const std::string& path) const {
  const AliasUse* best = nullptr;
  for (const auto& u : uses_) {
    bool holds = path == u.path || (path.size() > u.path.size() &&
                                    path.compare(0, u.path.size(), u.path) == 0 &&
                                    path[u.path.size()] == '.');
    if (holds && (!best || u.path.size() > best->path.size())) best = &u;
  }
  return best;
}

std::optional<YAML::Mark> AliasIndex::mark_of(const std::string& path) const {
  std::string p = path;
  // Each step moves from a use to its anchor, which comes earlier in the file: at most one step
  // per use.
  for (std::size_t step = 0; step <= uses_.size(); ++step) {
    const AliasUse* u = use_holding(p);
    if (!u) break;
    std::string rest = p.substr(u->path.size());  // "" or ".a.b"
    if (u->anchor_path.empty() && !rest.empty()) rest.erase(0, 1);
    p = u->anchor_path + rest;
  }
  auto it = marks_.find(p);
  if (it == marks_.end()) return std::nullopt;
  return it->second;
}

namespace {

// A copy made of new nodes only: nothing in it is shared with the original or within itself.
YAML::Node fresh_copy(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar: {
      YAML::Node out(n.Scalar());
      out.SetTag(n.Tag());
      return out;
    }
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      out.SetTag(n.Tag());
      out.SetStyle(n.Style());
      for (const auto& child : n) out.push_back(fresh_copy(child));
      return out;
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      out.SetTag(n.Tag());
      out.SetStyle(n.Style());
      for (const auto& kv : n) out.force_insert(fresh_copy(kv.first), fresh_copy(kv.second));
      return out;
    }
    case YAML::NodeType::Null:
      return YAML::Node(YAML::NodeType::Null);
    case YAML::NodeType::Undefined:
      break;
  }
  return YAML::Node();
}

struct UsePaths {
  bool use = false;
  std::map<std::string, UsePaths> below;
};

// The node with the uses below it replaced by fresh copies. A container on the way is rebuilt
// (assigning into it would write through to every path that shares it); its other children are
// the original nodes, positions and all.
YAML::Node rebuilt(const YAML::Node& n, const UsePaths& uses) {
  if (uses.use) return fresh_copy(n);
  if (n.IsSequence()) {
    YAML::Node out(YAML::NodeType::Sequence);
    out.SetTag(n.Tag());
    out.SetStyle(n.Style());
    for (std::size_t i = 0; i < n.size(); ++i) {
      auto it = uses.below.find(std::to_string(i));
      out.push_back(it == uses.below.end() ? n[i] : rebuilt(n[i], it->second));
    }
    return out;
  }
  if (n.IsMap()) {
    YAML::Node out(YAML::NodeType::Map);
    out.SetTag(n.Tag());
    out.SetStyle(n.Style());
    std::map<std::string, bool> done;  // a duplicated key: the path names the first one
    for (const auto& kv : n) {
      const UsePaths* below = nullptr;
      if (kv.first.IsScalar() && !done[kv.first.Scalar()]) {
        done[kv.first.Scalar()] = true;
        auto it = uses.below.find(kv.first.Scalar());
        if (it != uses.below.end()) below = &it->second;
      }
      out.force_insert(kv.first, below ? rebuilt(kv.second, *below) : kv.second);
    }
    return out;
  }
  return n;
}

}  // namespace

YAML::Node unshare_aliases(const YAML::Node& root, const AliasIndex& index) {
  if (index.uses().empty()) return root;
  UsePaths paths;
  for (const auto& u : index.uses()) {
    UsePaths* at = &paths;
    for (const auto& s : u.segments) at = &at->below[s];
    at->use = true;
  }
  return rebuilt(root, paths);
}

}  // namespace skysim::scenarios
