#include "app/commands.hpp"

namespace skysim::app {

void register_validate(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Check a scenario file and print every error");
  auto* file = new std::string;
  cmd->add_option("scenario", *file, "Scenario YAML file")->required();
  cmd->callback([file] { throw UsageError("validate: scenario loader not built yet: " + *file); });
}

}  // namespace skysim::app
