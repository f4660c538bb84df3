#pragma once
// Levenshtein distance, for "did you mean" in error messages (a misspelt scenario key, a
// --metric name). Header-only so layers that link no kernel code (analysis/) can use it.
#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace sim {

inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace sim
