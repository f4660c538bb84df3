// skysim: one binary, subcommands registered from app/cmd_*.cpp.
#include <cstdio>
#include <exception>

#include "app/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"skysim: a deterministic discrete-event simulator of a social-media backend"};
  app.set_version_flag("--version", std::string("skysim ") + SKYSIM_VERSION);
  app.require_subcommand(1);
  skysim::app::register_run(app);
  skysim::app::register_validate(app);
  skysim::app::register_bench(app);
  skysim::app::register_compare(app);
  skysim::app::register_merge(app);
  skysim::app::register_report(app);
  skysim::app::register_explain(app);
  skysim::app::register_selftest(app);
  skysim::app::register_fuzz(app);
  skysim::app::register_openmetrics(app);
  // CLI11 reports a mistyped subcommand as "a subcommand is required"; name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->check_name(argv[1]);
      if (!sub->get_group().empty()) names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "skysim: unknown subcommand '%s' (expected one of: %s)\n", argv[1],
                   names.c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "skysim: %s\n", e.what());
    std::fprintf(stderr, "Run with --help for more information.\n");
    return 2;
  } catch (const skysim::app::ExitCode& e) {
    return e.code;
  } catch (const skysim::app::UsageError& e) {
    std::fprintf(stderr, "skysim: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "skysim: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
