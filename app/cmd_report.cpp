// skysim report DIR: one self-contained HTML page for a run or compare directory.
#include <cstdio>
#include <filesystem>

#include "analysis/report.hpp"
#include "app/commands.hpp"

namespace skysim::app {

void register_report(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report", "Write DIR/report.html (self-contained) for a run or compare directory");
  auto* dir = new std::string;
  cmd->add_option("dir", *dir, "Directory written by `skysim run` or `skysim compare`")
      ->required();
  cmd->callback([dir] {
    if (!std::filesystem::is_directory(*dir)) {
      throw UsageError("report: no such directory: " + *dir);
    }
    try {
      std::printf("%s\n", analysis::write_report(*dir).c_str());
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  });
}

}  // namespace skysim::app
