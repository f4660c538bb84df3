#include <cstdio>
#include <memory>

#include "app/commands.hpp"
#include "scenarios/loader.hpp"

namespace skysim::app {

namespace {
struct ValidateArgs {
  std::vector<std::string> files;
  std::vector<std::string> sets;
};
}  // namespace

// Exit 0 when every file is valid; 2 (after printing every diagnostic) otherwise.
void register_validate(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Check scenario files and print every error");
  auto a = std::make_shared<ValidateArgs>();  // the callback owns it
  cmd->add_option("scenario", a->files, "Scenario YAML file(s)")->required();
  cmd->add_option("--set", a->sets, "Override path=value before validating (repeatable)");
  cmd->callback([a] {
    std::size_t bad = 0;
    for (const auto& file : a->files) {
      try {
        scenarios::LoadOptions opts;
        for (const auto& s : a->sets) opts.overrides.push_back(scenarios::parse_override(s));
        auto s = scenarios::load_scenario_file(file, scenarios::builtin_registry(), opts);
        std::printf("%s: ok (%s)\n", file.c_str(), s.name.c_str());
      } catch (const scenarios::ScenarioError& e) {
        for (const auto& d : e.diagnostics()) std::fprintf(stderr, "%s\n", d.to_string().c_str());
        std::fprintf(stderr, "%s: %zu error(s)\n", file.c_str(), e.diagnostics().size());
        ++bad;
      }
    }
    if (bad) throw ExitCode(2);
  });
}

}  // namespace skysim::app
