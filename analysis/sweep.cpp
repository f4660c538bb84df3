#include "analysis/sweep.hpp"

#include <cctype>
#include <charconv>
#include <set>
#include <stdexcept>

namespace skysim::analysis {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    auto pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) {
      return out;
    }
    start = pos + 1;
  }
}

std::uint64_t parse_seed(std::string_view text, std::string_view whole) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    throw std::invalid_argument("--seeds " + std::string(whole) + ": '" + std::string(text) +
                                "' is not a seed (an integer from 0 to 2^64-1)");
  }
  return v;
}

int parse_positive(std::string_view text, std::string_view whole) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < 1) {
    throw std::invalid_argument("--shard " + std::string(whole) +
                                ": expected i/n with 1 <= i <= n, e.g. 2/3");
  }
  return v;
}

}  // namespace

Json overrides_json(const std::vector<Override>& overrides) {
  JsonArray out;
  for (const auto& [path, value] : overrides) {
    out.push_back(JsonArray{Json(path), Json(value)});
  }
  return out;
}

std::vector<Override> overrides_from_json(const Json& j, const std::string& what) {
  std::vector<Override> out;
  for (const auto& set : j.as_array(what)) {
    auto pair = set.as_array(what + "[]");
    if (pair.size() != 2) {
      throw JsonError(what + ": expected [path, value] pairs");
    }
    out.emplace_back(pair[0].as_string(what + "[0]"), pair[1].as_string(what + "[1]"));
  }
  return out;
}

std::string Variant::label() const {
  if (!name.empty()) {
    return name;
  }
  if (overrides.empty()) {
    return "base";
  }
  std::string out;
  for (const auto& [path, value] : overrides) {
    out += (out.empty() ? "" : " ") + path + "=" + value;
  }
  return out;
}

Variant SweepSpec::variant(int index) const {
  Variant v;
  v.index = index;
  if (!named.empty()) {
    const auto& n = named.at(static_cast<std::size_t>(index));
    v.overrides = n.overrides;
    v.name = n.name;
    return v;
  }
  // Mixed-radix digits of the index, the last --vary varying fastest.
  int rest = index;
  v.overrides.resize(vary.size());
  for (std::size_t k = vary.size(); k-- > 0;) {
    int radix = static_cast<int>(vary[k].values.size());
    v.overrides[k] = {vary[k].path, vary[k].values[static_cast<std::size_t>(rest % radix)]};
    rest /= radix;
  }
  return v;
}

std::vector<Override> SweepSpec::run_overrides(int variant_index) const {
  std::vector<Override> out = sets;
  for (const auto& o : variant(variant_index).overrides) {
    out.push_back(o);
  }
  return out;
}

std::vector<Variant> SweepSpec::variants() const {
  std::size_t count = 1;
  for (const auto& v : vary) {
    count *= v.values.size();
  }
  if (!named.empty()) {
    count = named.size();
  }
  std::vector<Variant> out;
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back(variant(static_cast<int>(i)));
  }
  return out;
}

std::vector<RunSpec> SweepSpec::runs() const {
  std::vector<RunSpec> out;
  int index = 0;
  for (const auto& v : variants()) {
    for (auto seed : seeds) {
      out.push_back(RunSpec{index++, v.index, seed});
    }
  }
  return out;
}

Json SweepSpec::to_json() const {
  JsonArray vs;
  for (const auto& v : vary) {
    JsonArray values(v.values.begin(), v.values.end());
    vs.push_back(JsonObject{{"path", v.path}, {"values", std::move(values)}});
  }
  JsonArray ss;
  for (auto s : seeds) {
    ss.push_back(Json(s));
  }
  JsonObject o{{"scenario", scenario},
               {"vary", std::move(vs)},
               {"seeds", std::move(ss)},
               {"metrics", JsonArray(metrics.begin(), metrics.end())}};
  if (!fork_at.empty()) {
    o["fork_at"] = fork_at;  // only when set: unforked sweeps keep their bytes
  }
  if (!sets.empty()) {  // likewise
    o["set"] = overrides_json(sets);
  }
  if (!until.empty()) {
    o["until"] = until;
  }
  if (!named.empty()) {  // likewise only when used
    JsonArray ns;
    for (const auto& n : named) {
      ns.push_back(JsonObject{{"name", n.name}, {"set", overrides_json(n.overrides)}});
    }
    o["variants"] = std::move(ns);
  }
  return o;
}

SweepSpec SweepSpec::from_json(const Json& j) {
  SweepSpec s;
  s.scenario = j.at("scenario").as_string("sweep.scenario");
  for (const auto& v : j.at("vary").as_array("sweep.vary")) {
    Vary vary{v.at("path").as_string("sweep.vary.path"), {}};
    for (const auto& value : v.at("values").as_array("sweep.vary.values")) {
      vary.values.push_back(value.as_string("sweep.vary.values[]"));
    }
    if (vary.values.empty()) {
      throw JsonError("sweep.vary: " + vary.path + " has no values");
    }
    s.vary.push_back(std::move(vary));
  }
  for (const auto& seed : j.at("seeds").as_array("sweep.seeds")) {
    s.seeds.push_back(seed.as_uint64("sweep.seeds[]"));
  }
  for (const auto& m : j.at("metrics").as_array("sweep.metrics")) {
    s.metrics.push_back(m.as_string("sweep.metrics[]"));
  }
  if (auto f = j.find("fork_at")) {
    s.fork_at = f->as_string("sweep.fork_at");
  }
  if (auto f = j.find("set")) {
    s.sets = overrides_from_json(*f, "sweep.set");
  }
  if (auto f = j.find("until")) {
    s.until = f->as_string("sweep.until");
  }
  if (auto ns = j.find("variants")) {
    for (const auto& n : ns->as_array("sweep.variants")) {
      s.named.push_back(NamedVariant{n.at("name").as_string("sweep.variants.name"),
                                     overrides_from_json(n.at("set"), "sweep.variants.set")});
    }
  }
  return s;
}

Vary parse_vary(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    throw std::invalid_argument("--vary " + std::string(text) +
                                ": expected path=value1,value2,... e.g. fanout.policy=full,lossy");
  }
  Vary v{std::string(text.substr(0, eq)), {}};
  std::set<std::string_view> seen;
  for (auto value : split(text.substr(eq + 1), ',')) {
    if (value.empty()) {
      throw std::invalid_argument("--vary " + std::string(text) + ": empty value");
    }
    if (!seen.insert(value).second) {
      throw std::invalid_argument("--vary " + std::string(text) + ": value '" +
                                  std::string(value) + "' given twice");
    }
    v.values.emplace_back(value);
  }
  return v;
}

NamedVariant parse_variant(std::string_view text) {
  auto fail = [&](const std::string& why) {
    return std::invalid_argument("--variant " + std::string(text) + ": " + why +
                                 " (expected \"name: path=value path2=value2\", e.g. "
                                 "\"limit-50: datacenters.east.services.dataplane.params."
                                 "get_post_record_limit=50\")");
  };
  auto colon = text.find(':');
  if (colon == std::string_view::npos) throw fail("no ':' after the name");
  auto name = text.substr(0, colon);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  if (name.empty()) throw fail("empty name");
  if (name.find_first_of(" \t,\"") != std::string_view::npos) {
    throw fail("a name is one word");
  }
  NamedVariant v{std::string(name), {}};
  std::set<std::string_view> paths;
  for (auto word : split(text.substr(colon + 1), ' ')) {
    if (word.empty()) continue;
    auto eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == word.size()) {
      throw fail("'" + std::string(word) + "' is not path=value");
    }
    if (!paths.insert(word.substr(0, eq)).second) {
      throw fail("path " + std::string(word.substr(0, eq)) + " set twice");
    }
    v.overrides.emplace_back(std::string(word.substr(0, eq)), std::string(word.substr(eq + 1)));
  }
  return v;
}

std::vector<std::uint64_t> parse_seeds(std::string_view text) {
  std::vector<std::uint64_t> out;
  std::set<std::uint64_t> seen;
  auto add = [&](std::uint64_t s) {
    if (!seen.insert(s).second) {
      throw std::invalid_argument("--seeds " + std::string(text) + ": seed " + std::to_string(s) +
                                  " given twice");
    }
    out.push_back(s);
  };
  for (auto part : split(text, ',')) {
    auto dots = part.find("..");
    if (dots == std::string_view::npos) {
      add(parse_seed(part, text));
      continue;
    }
    auto lo = parse_seed(part.substr(0, dots), text);
    auto hi = parse_seed(part.substr(dots + 2), text);
    if (hi < lo) {
      throw std::invalid_argument("--seeds " + std::string(text) + ": range " +
                                  std::string(part) + " runs backwards");
    }
    if (hi - lo >= 1'000'000) {
      throw std::invalid_argument("--seeds " + std::string(text) +
                                  ": more than a million seeds in one range");
    }
    for (std::uint64_t k = 0; k <= hi - lo; ++k) {  // not s <= hi: hi may be 2^64 - 1
      add(lo + k);
    }
  }
  return out;
}

Shard parse_shard(std::string_view text) {
  auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    throw std::invalid_argument("--shard " + std::string(text) +
                                ": expected i/n with 1 <= i <= n, e.g. 2/3");
  }
  Shard s{parse_positive(text.substr(0, slash), text),
          parse_positive(text.substr(slash + 1), text)};
  if (s.index > s.count) {
    throw std::invalid_argument("--shard " + std::string(text) + ": shard index " +
                                std::to_string(s.index) + " exceeds the shard count " +
                                std::to_string(s.count));
  }
  return s;
}

std::string shell_word(std::string_view word) {
  bool plain = !word.empty();
  for (char c : word) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_-./=:,+@%").find(c) !=
                                                              std::string_view::npos)) {
      plain = false;
    }
  }
  if (plain) {
    return std::string(word);
  }
  std::string out = "'";
  for (char c : word) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

std::string reproducer(const SweepSpec& spec, const RunSpec& run) {
  std::string out =
      "skysim run " + shell_word(spec.scenario) + " --seed " + std::to_string(run.seed);
  for (const auto& [path, value] : spec.run_overrides(run.variant)) {
    out += " --set " + shell_word(path + "=" + value);
  }
  if (!spec.until.empty()) {
    out += " --until " + shell_word(spec.until);
  }
  if (!spec.fork_at.empty()) {
    // A branch is not a plain run: replay it as a one-variant, one-seed forked compare.
    out = "skysim compare " + shell_word(spec.scenario) + " --seeds " + std::to_string(run.seed) +
          " --fork-at " + shell_word(spec.fork_at);
    for (const auto& [path, value] : spec.sets) {
      out += " --set " + shell_word(path + "=" + value);
    }
    if (!spec.until.empty()) {
      out += " --until " + shell_word(spec.until);
    }
    for (const auto& [path, value] : spec.variant(run.variant).overrides) {
      out += " --vary " + shell_word(path + "=" + value);
    }
  }
  return out;
}

}  // namespace skysim::analysis
