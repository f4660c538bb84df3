// skysim openmetrics RUN_DIR [--out FILE]: a finished run's timeseries.csv in the OpenMetrics
// text format at simulated time, for `promtool tsdb create-blocks-from openmetrics`
// (docs/observability.md). The series' types come from summary.json's metrics section.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "analysis/openmetrics.hpp"
#include "analysis/sweep_runner.hpp"
#include "app/commands.hpp"
#include "sim/time.hpp"

namespace skysim::app {

namespace {

struct OpenMetricsArgs {
  std::string dir;
  std::string out;
};

analysis::SampledRun read_run(const std::filesystem::path& dir) {
  for (const char* f : {"timeseries.csv", "summary.json"}) {
    if (!std::filesystem::exists(dir / f)) {
      throw UsageError("openmetrics: " + (dir / f).string() +
                       " is missing (a directory written by `skysim run --out DIR`?)");
    }
  }
  std::string summary_path = (dir / "summary.json").string();
  std::string csv_path = (dir / "timeseries.csv").string();
  analysis::SampledRun run;
  try {
    analysis::Json summary = analysis::Json::parse(analysis::read_file_text(summary_path));
    run.epoch_unix_ns = sim::parse_iso8601_unix_ns(summary.at("epoch").as_string("epoch"));
    run.series = analysis::series_from_summary(summary);
  } catch (const analysis::JsonError& e) {
    throw UsageError(summary_path + ": " + e.what());
  } catch (const sim::TimeParseError& e) {
    throw UsageError(summary_path + ": epoch: " + e.what());
  } catch (const std::invalid_argument& e) {
    throw UsageError(summary_path + ": " + e.what());
  }
  try {
    run.table = analysis::TimeSeriesTable::parse_csv(analysis::read_file_text(csv_path), csv_path);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return run;
}

}  // namespace

void register_openmetrics(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "openmetrics",
      "Write a run's time series as OpenMetrics text at simulated time (for promtool/Prometheus)");
  auto a = std::make_shared<OpenMetricsArgs>();  // the callback owns it
  cmd->add_option("dir", a->dir, "Directory written by `skysim run`")->required();
  cmd->add_option("--out", a->out, "Output file (default DIR/openmetrics.txt)");
  cmd->callback([a] {
    if (!std::filesystem::is_directory(a->dir)) {
      throw UsageError("openmetrics: no such directory: " + a->dir);
    }
    analysis::SampledRun run = read_run(a->dir);
    std::string out =
        a->out.empty() ? (std::filesystem::path(a->dir) / "openmetrics.txt").string() : a->out;
    std::string text;
    try {
      text = analysis::to_openmetrics(run);
    } catch (const std::invalid_argument& e) {
      throw UsageError(a->dir + ": " + e.what());
    }
    analysis::write_file_text(out, text);
    std::printf("wrote %s\n", out.c_str());
  });
}

}  // namespace skysim::app
