// skysim report DIR: one self-contained HTML page for a run or compare directory; for a run, the
// panels its service kinds declare (app/report_inputs.hpp).
// skysim report --metastability RUN_DIR [--trigger-end DATE [--trigger-start DATE]]: did each
// metric return to its pre-trigger band after the trigger was removed (analysis/metastability)?
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "analysis/metastability.hpp"
#include "analysis/report.hpp"
#include "analysis/sweep_runner.hpp"
#include "app/commands.hpp"
#include "app/metastability_triggers.hpp"
#include "app/report_inputs.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/model_registry.hpp"
#include "scenarios/units.hpp"

namespace skysim::app {

namespace {

struct ReportArgs {
  std::string dir;
  bool metastability = false;
  std::string trigger_start;
  std::string trigger_end;
  std::string baseline;
  analysis::MetastabilityOptions options;
};

sim::Time date_arg(const char* flag, const std::string& text, const scenarios::Scenario& s) {
  try {
    return scenarios::parse_date_or_offset(text, s.epoch_unix_ns) - s.epoch_unix_ns;
  } catch (const scenarios::UnitError& e) {
    throw UsageError(std::string(flag) + " " + text + ": " + e.what() + " (expected " +
                     e.expected() + ")");
  }
}

void metastability(ReportArgs& a) {
  namespace fs = std::filesystem;
  fs::path dir(a.dir);
  for (const char* f : {"timeseries.csv", "summary.json", "scenario.resolved.yaml"}) {
    if (!fs::exists(dir / f)) {
      throw UsageError("report --metastability: " + (dir / f).string() +
                       " is missing (a directory written by `skysim run --out DIR`?)");
    }
  }
  scenarios::Scenario s = scenarios::load_scenario_file((dir / "scenario.resolved.yaml").string(),
                                                        scenarios::builtin_registry());
  if (!a.baseline.empty()) {
    try {
      a.options.baseline_s = static_cast<double>(scenarios::parse_duration(a.baseline)) / 1e9;
    } catch (const scenarios::UnitError& e) {
      throw UsageError("--baseline " + a.baseline + ": " + e.what());
    }
  }
  std::vector<analysis::Trigger> triggers;
  try {
    if (!a.trigger_end.empty()) {
      std::optional<sim::Time> start;
      if (!a.trigger_start.empty()) {
        start = date_arg("--trigger-start", a.trigger_start, s);
      }
      triggers.push_back(explicit_trigger(s, date_arg("--trigger-end", a.trigger_end, s), start));
    } else if (!a.trigger_start.empty()) {
      throw UsageError("--trigger-start needs --trigger-end");
    } else {
      triggers = scenario_triggers(s);
      if (triggers.empty()) {
        throw UsageError("report --metastability: scenario " + s.name +
                         " removes no trigger by itself (no source stop, no healing fault); "
                         "pass --trigger-end DATE");
      }
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  auto table = analysis::TimeSeriesTable::parse_csv(
      analysis::read_file_text((dir / "timeseries.csv").string()),
      (dir / "timeseries.csv").string());
  table.counters_to_rates(analysis::counter_columns(
      analysis::Json::parse(analysis::read_file_text((dir / "summary.json").string()))));
  analysis::JsonArray reports;
  for (const auto& t : triggers) {
    try {
      auto rep = analysis::analyse_metastability(table, t, a.options);
      std::printf("%s\n", rep.format().c_str());
      reports.push_back(rep.to_json());
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  auto out = (dir / "metastability.json").string();
  analysis::write_file_text(
      out, analysis::Json(analysis::JsonObject{{"epoch", sim::format_iso8601(s.epoch_unix_ns)},
                                               {"reports", reports}})
                   .dump_pretty() +
               "\n");
  std::printf("wrote %s\n", out.c_str());
}

}  // namespace

void register_report(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report", "Write DIR/report.html (self-contained) for a run or compare directory");
  auto a = std::make_shared<ReportArgs>();  // the callback owns it
  cmd->add_option("dir", a->dir, "Directory written by `skysim run` or `skysim compare`")
      ->required();
  cmd->add_flag("--metastability", a->metastability,
                "Instead: did each metric of the run in DIR return to its pre-trigger band "
                "after the trigger was removed? Writes DIR/metastability.json");
  cmd->add_option("--trigger-end", a->trigger_end,
                  "With --metastability: when the trigger was removed (date or offset); "
                  "default: found in the scenario (source stop, healed fault)");
  cmd->add_option("--trigger-start", a->trigger_start,
                  "With --trigger-end: when the trigger began (default: the last source start "
                  "before the end)");
  cmd->add_option("--k", a->options.k, "Band half-width in baseline standard deviations (3)");
  cmd->add_option("--hold", a->options.hold, "Consecutive rows in band that count as returned (3)");
  cmd->add_option("--baseline", a->baseline,
                  "Baseline window before the trigger, e.g. 1h (default: all but the first 10 %)");
  cmd->add_option("--metric", a->options.metrics, "Only columns containing this text (repeatable)");
  cmd->callback([a] {
    if (!std::filesystem::is_directory(a->dir)) {
      throw UsageError("report: no such directory: " + a->dir);
    }
    if (a->metastability) {
      metastability(*a);
      return;
    }
    if (!a->trigger_end.empty() || !a->trigger_start.empty()) {
      throw UsageError("report: --trigger-end/--trigger-start need --metastability");
    }
    try {
      namespace fs = std::filesystem;
      fs::path dir(a->dir);
      analysis::RunReportInputs run;
      if (!fs::exists(dir / "compare.json") && fs::exists(dir / "summary.json")) {
        run = run_report_inputs(
            dir, analysis::Json::parse(analysis::read_file_text((dir / "summary.json").string())),
            scenarios::builtin_registry());
      }
      std::printf("%s\n", analysis::write_report(a->dir, run).c_str());
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  });
}

}  // namespace skysim::app
