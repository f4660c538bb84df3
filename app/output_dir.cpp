#include "app/output_dir.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "app/commands.hpp"

namespace skysim::app {

void prepare_output_dir(const std::string& dir, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw UsageError(flag + " " + dir + ": exists and is not a directory");
  }
  fs::create_directories(dir, ec);
  if (ec) throw UsageError(flag + " " + dir + ": cannot create the directory: " + ec.message());
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(flag + " " + dir + ": the directory is not writable");
  }
}

}  // namespace skysim::app
