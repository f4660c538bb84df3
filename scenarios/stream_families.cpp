#include "scenarios/stream_families.hpp"

#include <algorithm>
#include <map>
#include <string_view>

#include "sim/rng.hpp"

namespace skysim::scenarios {
namespace {

// "a/worker/17" -> "a/worker/"; a name not ending in a digit has no family ("").
std::string_view family_prefix(std::string_view name) {
  std::size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  return end == name.size() ? std::string_view{} : name.substr(0, end);
}

std::uint64_t mix(std::uint64_t h) {  // SplitMix64's finaliser
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBULL;
  return h ^ (h >> 31);
}

}  // namespace

std::vector<StreamDrawEntry> fold_stream_families(
    const std::vector<std::pair<std::string, std::uint64_t>>& draws) {
  std::map<std::string_view, std::size_t> members;
  for (const auto& [name, n] : draws) {
    if (auto p = family_prefix(name); !p.empty()) ++members[p];
  }
  std::map<std::string, StreamDrawEntry> out;  // by written name, so the listing is in order
  for (const auto& [name, n] : draws) {
    std::string_view p = family_prefix(name);
    if (p.empty() || members[p] <= kFoldAbove) {
      out.emplace(name, StreamDrawEntry{name, n});
      continue;
    }
    std::string key = std::string(p) + "*";
    auto [it, fresh] = out.try_emplace(key, StreamDrawEntry{key, StreamFamily{}});
    auto& f = std::get<StreamFamily>(it->second.value);
    ++f.streams;
    f.draws += n;
    // `draws` comes in name order (a std::map), the same in every run.
    f.digest = mix(f.digest ^ sim::stream_seed(0, name));
    f.digest = mix(f.digest ^ n);
  }
  std::vector<StreamDrawEntry> result;
  result.reserve(out.size());
  for (auto& [key, e] : out) result.push_back(std::move(e));
  return result;
}

}  // namespace skysim::scenarios
