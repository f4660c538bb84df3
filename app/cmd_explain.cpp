#include <cstdio>
#include <memory>

#include "app/commands.hpp"
#include "scenarios/explain.hpp"

namespace skysim::app {

namespace {
struct ExplainArgs {
  std::string kind;
  bool markdown = false;
};
}  // namespace

void register_explain(CLI::App& app) {
  auto* cmd = app.add_subcommand("explain", "List service kinds, or one kind's parameters");
  auto a = std::make_shared<ExplainArgs>();  // the callback owns it
  cmd->add_option("kind", a->kind, "Service kind, or machine (omit to list all kinds)");
  cmd->add_flag("--markdown", a->markdown,
                "Markdown; without KIND prints the whole docs/scenario-reference.md");
  cmd->callback([a] {
    const auto& reg = scenarios::builtin_registry();
    if (a->kind.empty()) {
      std::fputs((a->markdown ? scenarios::reference_markdown(reg) : scenarios::explain_kinds(reg))
                     .c_str(),
                 stdout);
      return;
    }
    if (a->kind == "machine") {
      std::fputs(scenarios::explain_machine(a->markdown).c_str(), stdout);
      return;
    }
    const auto* k = reg.find(a->kind);
    if (!k) {
      std::string known;
      for (const auto& n : reg.names()) known += (known.empty() ? "" : ", ") + n;
      throw UsageError("explain: unknown service kind '" + a->kind + "' (known: " + known +
                       "; and machine)");
    }
    std::fputs(scenarios::explain_kind(*k, a->markdown).c_str(), stdout);
  });
}

}  // namespace skysim::app
