// skysim merge SHARD.jsonl... [--out DIR] [--metric NAME]...: the tables, files and exit status
// of the unsharded compare, from the JSON lines its shards wrote; --metric re-tabulates.
#include <filesystem>
#include <iostream>
#include <memory>

#include "analysis/compare_command.hpp"
#include "analysis/json.hpp"
#include "app/commands.hpp"

namespace skysim::app {

namespace {

struct MergeArgs {
  std::vector<std::string> files;
  std::string out;
  std::vector<std::string> metrics;
  bool no_plots = false;
};

void merge(const MergeArgs& a) {
  for (const auto& f : a.files) {
    if (!std::filesystem::is_regular_file(f)) {
      throw UsageError("merge: no such shard file: " + f);
    }
  }
  std::string out = a.out;
  if (out.empty()) {
    auto parent = std::filesystem::path(a.files.front()).parent_path();
    out = parent.empty() ? "." : parent.string();
  }
  int status = 0;
  try {
    status = analysis::run_merge({a.files, out, !a.no_plots, a.metrics}, std::cout, std::cerr);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  } catch (const analysis::JsonError& e) {
    throw UsageError(e.what());
  }
  std::cout.flush();
  if (status != 0) {
    throw ExitCode{status};
  }
}

}  // namespace

void register_merge(CLI::App& app) {
  auto* cmd = app.add_subcommand("merge", "Combine compare shards (JSON lines) into one compare; refuses shards of another build "
      "or scenario file");
  auto a = std::make_shared<MergeArgs>();  // the callback owns it
  cmd->add_option("files", a->files,
                  "Shard files written by compare --shard, or a compare's runs.jsonl")
      ->required();
  cmd->add_option("--out", a->out, "Output directory (default: the first file's directory)");
  cmd->add_option("--metric", a->metrics,
                  "Tabulate this metric instead of the shards' --metric list (repeatable; any "
                  "metric the runs reported)");
  cmd->add_flag("--no-plots", a->no_plots, "Skip the gnuplot plots");
  cmd->callback([a] { merge(*a); });
}

}  // namespace skysim::app
