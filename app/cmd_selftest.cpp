// skysim selftest [--quick] [--jobs N]: the simulator checked against queueing theory and the
// published figures, as one table. Exit 0 only when every line holds or is a documented known
// departure (docs/validation.md).
#include <cstdio>
#include <filesystem>
#include <memory>

#include "app/commands.hpp"
#include "validation/selftest.hpp"

namespace skysim::app {

void register_selftest(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "selftest", "Check the kernel and models against analytic queueing results and the "
                  "published figures; exit 0 only if every check holds (a documented known departure "
                  "is shown as DEPARTS and counted, not failed)");
  auto o = std::make_shared<validation::SelftestOptions>();  // the callback owns it
  cmd->add_flag("--quick", o->quick,
                "Runs a quarter as long, fan-out on smaller celebrities (wider intervals)");
  cmd->add_option("--jobs", o->jobs, "Replications run in parallel (the table does not change)");
  cmd->add_option("--seeds", o->seeds, "Independent replications per case (default 10)");
  cmd->add_option("--scenario-dir", o->scenario_dir,
                  "Directory holding validation-*.yaml (default: the source tree's scenarios/)");
  cmd->callback([o] {
    if (o->jobs < 1) throw UsageError("selftest: --jobs must be >= 1");
    if (o->seeds < 2) throw UsageError("selftest: --seeds must be >= 2 (a CI needs a spread)");
    if (!o->scenario_dir.empty() && !std::filesystem::is_directory(o->scenario_dir)) {
      throw UsageError("selftest: no such directory: " + o->scenario_dir);
    }
    validation::SelftestReport r = validation::run_selftest(*o);
    std::printf("%s", validation::format_table(r.rows).c_str());
    std::printf("verdict intervals: %d statistical lines, family-wise 95 %% (each at %.4f %%)\n",
                r.statistical_lines, 100 * r.verdict_confidence);
    if (!r.all_hold()) throw ExitCode{1};
  });
}

}  // namespace skysim::app
