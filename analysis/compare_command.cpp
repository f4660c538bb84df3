#include "analysis/compare_command.hpp"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "analysis/fork.hpp"
#include "analysis/plot.hpp"
#include "analysis/run_record.hpp"
#include "analysis/sweep_runner.hpp"
#include "analysis/worker_pool.hpp"

namespace skysim::analysis {

namespace fs = std::filesystem;

namespace {

std::string to_lines(const SweepSpec& spec, std::vector<RunRecord> records) {
  std::sort(records.begin(), records.end(),
            [](const RunRecord& a, const RunRecord& b) { return a.run.index < b.run.index; });
  std::string text;
  for (const auto& r : records) {
    text += to_json_line(spec, r) + "\n";
  }
  return text;
}

// Reads the JSON lines of one or more files; every line must describe the same sweep.
std::vector<RunRecord> read_lines(const std::vector<std::string>& files, SweepSpec& spec) {
  std::vector<RunRecord> records;
  std::string sweep_text, sweep_where;
  for (const auto& file : files) {
    std::stringstream in(read_file_text(file));
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      if (line.empty()) {
        continue;
      }
      std::string where = file + ":" + std::to_string(lineno);
      SweepSpec line_spec;
      records.push_back(from_json_line(line, where, line_spec));
      std::string text = line_spec.to_json().dump();
      if (sweep_text.empty()) {
        sweep_text = text;
        sweep_where = where;
        spec = line_spec;
      } else if (text != sweep_text) {
        throw std::invalid_argument(where + ": belongs to a different sweep than " + sweep_where +
                                    " (scenario, --vary, --seeds and --metric must match)");
      }
    }
  }
  if (records.empty()) {
    throw std::invalid_argument("merge: no run records in the given files");
  }
  return records;
}

// The common tail of compare and merge: tables on `out`, files in `out_dir`.
int finish(const SweepSpec& spec, const std::vector<RunRecord>& records,
           const std::string& out_dir, bool plots, const std::string& runs_dir,
           const std::vector<std::string>& series, bool write_runs, std::ostream& out,
           std::ostream& err) {
  Comparison c = compare_runs(spec, records);  // checks every run is there exactly once
  if (write_runs) {
    write_file_text((fs::path(out_dir) / kRunsFile).string(), to_lines(spec, records));
  }
  std::string tables = format_tables(c);
  write_file_text((fs::path(out_dir) / "compare.json").string(), to_json(c).dump_pretty());
  write_file_text((fs::path(out_dir) / "compare.csv").string(), to_csv(c));
  write_file_text((fs::path(out_dir) / "tables.txt").string(), tables);
  out << tables;
  if (plots) {
    try {
      auto dir = (fs::path(out_dir) / "plots").string();
      plot_metrics(c, dir);
      if (!series.empty()) {
        plot_series(c, records, runs_dir, series, dir, err);
      }
    } catch (const std::runtime_error& e) {
      err << "compare: plots: " << e.what() << "\n";
    }
  }
  return c.exit_status();
}

}  // namespace

std::string shard_file_name(const Shard& s) {
  return "shard-" + std::to_string(s.index) + "-of-" + std::to_string(s.count) + ".jsonl";
}

int run_compare(const CompareOptions& opt, std::ostream& out, std::ostream& err) {
  const SweepSpec& spec = opt.spec;
  if (spec.seeds.empty()) {
    throw std::invalid_argument("compare: no seeds");
  }
  if (opt.out_dir.empty()) {
    throw std::invalid_argument("compare: no output directory");
  }
  fs::create_directories(opt.out_dir);
  RunnerOptions runner{opt.program.empty() ? self_executable() : opt.program,
                       (fs::path(opt.out_dir) / "runs").string(), opt.jobs};
  std::vector<RunSpec> runs;
  for (const auto& r : spec.runs()) {
    if (!opt.shard || opt.shard->contains(r.index)) {
      runs.push_back(r);
    }
  }
  // --fork-at: one worker per seed runs the shared prefix once and forks the variants.
  auto records = spec.fork_at.empty()
                     ? execute_runs(spec, runs, runner, opt.progress ? &err : nullptr)
                     : execute_forked_runs(spec, runs, runner, opt.progress ? &err : nullptr);

  std::string lines = to_lines(spec, records);
  if (opt.shard) {
    auto path = (fs::path(opt.out_dir) / shard_file_name(*opt.shard)).string();
    write_file_text(path, lines);
    int failed = 0;
    for (const auto& r : records) {
      if (!r.ok) {
        ++failed;
        err << "run " << r.run.index << " failed: " << r.failure
            << "\n  reproduce: " << reproducer(spec, r.run) << "\n";
      }
    }
    out << "shard " << opt.shard->text() << ": " << records.size() << " of "
        << spec.runs().size() << " runs, " << failed << " failed; wrote " << path << "\n";
    return failed == 0 ? 0 : 1;
  }
  // Read back what was written, so the tables come from exactly what a merge would see.
  auto runs_path = (fs::path(opt.out_dir) / kRunsFile).string();
  write_file_text(runs_path, lines);
  SweepSpec read_spec;
  auto read_back = read_lines({runs_path}, read_spec);
  return finish(read_spec, read_back, opt.out_dir, opt.plots, runner.runs_dir, opt.series, false,
                out, err);
}

int run_merge(const std::vector<std::string>& files, const std::string& out_dir, bool plots,
              std::ostream& out, std::ostream& err) {
  if (files.empty()) {
    throw std::invalid_argument("merge: no shard files given");
  }
  SweepSpec spec;
  auto records = read_lines(files, spec);
  fs::create_directories(out_dir);
  return finish(spec, records, out_dir, plots, "", {}, true, out, err);
}

}  // namespace skysim::analysis
