#include "app/commands.hpp"

namespace skysim::app {

void register_run(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run a scenario");
  auto* file = new std::string;
  cmd->add_option("scenario", *file, "Scenario YAML file")->required();
  cmd->callback([file] { throw UsageError("run: scenario loader not built yet: " + *file); });
}

}  // namespace skysim::app
