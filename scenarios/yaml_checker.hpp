#pragma once
// What the scenario loader checks YAML with, shared by the parts that read one section each
// (the loader, the Go programs of scenarios/program_loader.cpp): every problem becomes a
// Diagnostic at file:line:column (or at the --set override that made it), and reading goes on,
// so one pass reports them all.
#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"
#include "scenarios/units.hpp"
#include "scenarios/yaml_aliases.hpp"
#include "sim/params.hpp"

namespace skysim::scenarios::yamlcheck {

inline constexpr int kMaxDepth = 64;
inline constexpr std::size_t kMaxNodes = 1'000'000;

// [A-Za-z0-9_-]{1,64}: names that keep a --set path unambiguous.
bool valid_name(const std::string& s);
std::string join_names(const std::vector<std::string>& names);
std::string one_of(const std::vector<std::string>& names);  // "one of: a, b"
std::string suggestion(const std::string& got, const std::vector<std::string>& names);
std::string join(const std::string& path, const std::string& key);  // "a.b" + "c"
std::string printable(const std::string& s);  // control bytes as '?', at most 60 chars
std::vector<std::string> split_path(const std::string& path);

class Checker {
 public:
  Checker(std::string file, std::vector<std::string> override_paths, const AliasIndex& aliases)
      : file_(std::move(file)), override_paths_(std::move(override_paths)), aliases_(aliases) {}

  std::vector<Diagnostic> diagnostics;

  void error(const YAML::Node& at, const std::string& path, const std::string& message,
             const std::string& expected = "") {
    diagnostics.push_back({where(at, path), path, message, expected});
  }

  std::string where(const YAML::Node& at, const std::string& path) const {
    for (const auto& o : override_paths_) {
      if (path == o || path.rfind(o + ".", 0) == 0) return "--set " + o;
    }
    // A key the file does not have, made by an override further down the path: the override
    // is what to fix, not the file.
    if (!override_paths_.empty() && !aliases_.mark_of(path)) {
      for (const auto& o : override_paths_) {
        if (o.rfind(path + ".", 0) == 0) return "--set " + o;
      }
    }
    // A node in an alias's copy has no position of its own: it was written in the anchor.
    const AliasUse* use = aliases_.use_holding(path);
    std::optional<YAML::Mark> mark;
    if (!use && at.IsDefined() && at.Mark().line >= 0) mark = at.Mark();
    if (!mark) mark = aliases_.mark_of(path);
    std::string where = mark ? at_mark(*mark) : file_;
    if (use) {
      where += ", in *" + use->anchor + " at " + at_mark(use->use) + " (anchor &" + use->anchor +
               " at " + at_mark(use->anchor_mark) + ")";
    }
    return where;
  }

  std::string at_mark(const YAML::Mark& m) const {
    return file_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  }

  // Duplicate keys (yaml-cpp keeps both silently), non-text keys and absurd nesting.
  void walk(const YAML::Node& n, const std::string& path, int depth) {
    if (++visited_ > kMaxNodes) {
      if (visited_ == kMaxNodes + 1) error(n, path, "document has too many nodes", "< 1000000");
      return;
    }
    if (depth > kMaxDepth) {
      error(n, path, "nesting is too deep", "at most 64 levels");
      return;
    }
    if (n.IsMap()) {
      std::map<std::string, int> seen;
      for (auto it = n.begin(); it != n.end(); ++it) {
        if (!it->first.IsScalar()) {
          error(it->first, path, "a key must be plain text");
          continue;
        }
        const std::string& k = it->first.Scalar();
        if (seen[k]++ == 1) {
          error(it->first, join(path, k), "duplicate key '" + printable(k) + "'");
        }
        walk(it->second, join(path, k), depth + 1);
      }
    } else if (n.IsSequence()) {
      for (std::size_t i = 0; i < n.size(); ++i)
        walk(n[i], join(path, std::to_string(i)), depth + 1);
    }
  }

  // Checks a mapping's keys. Returns false if the node is not a map.
  bool keys(const YAML::Node& n, const std::string& path, const std::vector<std::string>& allowed,
            const std::vector<std::string>& required = {}) {
    if (!n.IsMap()) {
      error(n, path, "must be a map", "keys " + one_of(allowed).substr(7));
      return false;
    }
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->first.IsScalar()) continue;  // reported by walk()
      const std::string& k = it->first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
        error(it->first, join(path, k),
              "unknown key '" + printable(k) + "'" + suggestion(k, allowed), one_of(allowed));
      }
    }
    for (const auto& r : required) {
      if (!n[r]) error(n, path, "missing required key '" + r + "'");
    }
    return true;
  }

  std::optional<std::string> scalar(const YAML::Node& n, const std::string& path,
                                    const std::string& expected) {
    if (!n.IsScalar()) {
      error(n, path, n.IsNull() ? "has no value" : "must be a single value", expected);
      return std::nullopt;
    }
    return n.Scalar();
  }

  template <class F>
  auto parse(const YAML::Node& n, const std::string& path, const std::string& expected, F&& fn)
      -> std::optional<decltype(fn(std::string()))> {
    auto s = scalar(n, path, expected);
    if (!s) return std::nullopt;
    try {
      return fn(*s);
    } catch (const UnitError& e) {
      error(n, path, e.what(), e.expected());
    }
    return std::nullopt;
  }

 private:
  std::string file_;
  std::vector<std::string> override_paths_;
  const AliasIndex& aliases_;
  std::size_t visited_ = 0;
};

// Parses one model parameter (scalar or distribution) and checks its range.
std::optional<sim::ParamValue> parse_param(Checker& c, const sim::ParamSpec& spec,
                                           const YAML::Node& n, const std::string& path);

}  // namespace skysim::scenarios::yamlcheck
