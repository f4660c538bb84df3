#include "app/commands.hpp"

namespace skysim::app {

void register_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Kernel benchmarks");
  cmd->require_subcommand(1);
  cmd->add_subcommand("phold", "PHOLD benchmark");
}

}  // namespace skysim::app
