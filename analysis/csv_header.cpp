#include "analysis/csv_header.hpp"

namespace skysim::analysis {

std::vector<std::string> split_csv_header(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> out(1);
  bool quoted = false;
  int depth = 0;  // inside a key's {labels}: an unquoted legacy ';' there was a ','
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
      continue;
    }
    if (c == '"' && out.back().empty()) {
      quoted = true;
    } else if (c == ',' && depth == 0) {
      out.emplace_back();
    } else {
      depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      out.back() += depth > 0 && c == ';' ? ',' : c;
    }
  }
  return out;
}

}  // namespace skysim::analysis
