#include "scenarios/datacenter_fingerprint.hpp"

#include <bit>
#include <vector>

namespace skysim::scenarios {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t x) {
  h ^= x;
  h *= 0x9E3779B97F4A7C15ULL;
  return h ^ (h >> 31);
}

std::uint64_t hash_text(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ULL;  // FNV-1a: stable across builds, unlike std::hash
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ULL;
  return h;
}

}  // namespace

bool column_of_datacenter(std::string_view column, std::string_view dc) {
  auto open = column.find('{');
  auto close = column.find('}', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return false;
  std::string_view labels = column.substr(open + 1, close - open - 1);
  while (!labels.empty()) {
    auto comma = labels.find(',');
    std::string_view label = labels.substr(0, comma);
    auto eq = label.find('=');
    if (eq != std::string_view::npos) {
      std::string_view key = label.substr(0, eq), value = label.substr(eq + 1);
      if (key == "dc" && value == dc) return true;
      if (key == "host" && value.size() > dc.size() && value.substr(0, dc.size()) == dc &&
          value[dc.size()] == '/') {
        return true;
      }
    }
    if (comma == std::string_view::npos) break;
    labels.remove_prefix(comma + 1);
  }
  return false;
}

std::uint64_t datacenter_fingerprint(const sim::TimeSeriesSampler& sampler, std::string_view dc) {
  const auto& columns = sampler.columns();
  std::vector<std::uint64_t> column_hash(columns.size(), 0);  // 0: not this datacenter's
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (column_of_datacenter(columns[c], dc)) column_hash[c] = hash_text(columns[c]) | 1;
  }
  std::uint64_t h = 0x5EED5EED5EED5EEDULL;
  for (const auto& s : sampler.samples()) {
    if (column_hash[s.column] == 0) continue;
    h = mix(h, static_cast<std::uint64_t>(s.time));
    h = mix(h, column_hash[s.column]);
    h = mix(h, std::bit_cast<std::uint64_t>(s.value));
  }
  return h;
}

}  // namespace skysim::scenarios
