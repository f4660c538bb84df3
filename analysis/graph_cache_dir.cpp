#include "analysis/graph_cache_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace skysim::analysis {

GraphCacheDir::GraphCacheDir() {
  const char* set = std::getenv(kGraphCacheEnv);
  if (set != nullptr && *set != '\0') {
    return;
  }
  std::error_code ec;
  std::string pattern =
      (std::filesystem::temp_directory_path(ec) / "skysim-graphs-XXXXXX").string();
  if (ec) {
    return;
  }
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    return;
  }
  path_ = buf.data();
  ::setenv(kGraphCacheEnv, path_.c_str(), 1);
}

GraphCacheDir::~GraphCacheDir() {
  if (path_.empty()) {
    return;
  }
  ::unsetenv(kGraphCacheEnv);
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace skysim::analysis
