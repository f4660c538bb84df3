#include "analysis/compare_command.hpp"

#include <algorithm>
#include <set>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "analysis/fork.hpp"
#include "analysis/graph_cache_dir.hpp"
#include "analysis/plot.hpp"
#include "analysis/run_record.hpp"
#include "analysis/sweep_runner.hpp"
#include "analysis/worker_pool.hpp"

namespace skysim::analysis {

namespace fs = std::filesystem;

namespace {

std::string to_lines(const RunsHeader& header, std::vector<RunRecord> records) {
  std::sort(records.begin(), records.end(),
            [](const RunRecord& a, const RunRecord& b) { return a.run.index < b.run.index; });
  std::string text = header_line(header) + "\n";
  for (const auto& r : records) {
    text += to_json_line(header.spec, r) + "\n";
  }
  return text;
}

// What two headers must share to be one sweep; the message says which part differs.
void check_same_sweep(const RunsHeader& a, const std::string& a_where, const RunsHeader& b,
                      const std::string& b_where) {
  if (a.build != b.build) {
    throw std::invalid_argument(b_where + ": written by another build of skysim (" + b.build +
                                ", but " + a_where + " has " + a.build +
                                "): run every shard with the same binary");
  }
  if (a.scenario_hash != b.scenario_hash) {
    throw std::invalid_argument(b_where + ": the scenario file " + b.spec.scenario +
                                " had other contents when this shard ran (" + b.scenario_hash +
                                ", but " + a_where + " has " + a.scenario_hash + ")");
  }
  if (a.spec.to_json().dump() != b.spec.to_json().dump()) {
    throw std::invalid_argument(b_where + ": belongs to a different sweep than " + a_where +
                                " (scenario, --vary/--variant, --set, --until, --seeds and "
                                "--metric must match)");
  }
}

// Reads one or more runs files: each starts with a header, and all headers agree.
std::vector<RunRecord> read_lines(const std::vector<std::string>& files, RunsHeader& header) {
  std::vector<RunRecord> records;
  std::string first_where;
  for (const auto& file : files) {
    std::stringstream in(read_file_text(file));
    std::string line;
    int lineno = 0;
    bool have_header = false;
    RunsHeader file_header;
    while (std::getline(in, line)) {
      ++lineno;
      if (line.empty()) {
        continue;
      }
      std::string where = file + ":" + std::to_string(lineno);
      if (!have_header) {
        file_header = header_from_line(line, where);
        have_header = true;
        if (first_where.empty()) {
          header = file_header;
          first_where = file;
        } else {
          check_same_sweep(header, first_where, file_header, file);
        }
        continue;
      }
      records.push_back(from_json_line(line, where, file_header.spec));
    }
  }
  if (records.empty()) {
    throw std::invalid_argument("merge: no run records in the given files");
  }
  return records;
}

// The common tail of compare and merge: tables on `out`, files in `out_dir`.
int finish(const RunsHeader& header, const std::vector<RunRecord>& records,
           const std::string& out_dir, bool plots, const std::string& runs_dir,
           const std::vector<std::string>& series, bool write_runs, std::ostream& out,
           std::ostream& err) {
  Comparison c = compare_runs(header.spec, records);  // checks every run is there exactly once
  if (write_runs) {
    write_file_text((fs::path(out_dir) / kRunsFile).string(), to_lines(header, records));
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
  if (spec.variants().size() > 1 && spec.seeds.size() < 2) {
    throw std::invalid_argument(
        "compare: comparing " + std::to_string(spec.variants().size()) +
        " variants needs at least 2 seeds (the paired test estimates the spread of the "
        "per-seed differences; one seed has none), e.g. --seeds 1..20");
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
  // --metric names: metric series appear as a run creates them (host.crashes only after a
  // crash), so the complete list is a run's own report. The first run is checked as soon as it
  // ends, while the others run on; a wrong name stops the sweep there, not after all of it.
  auto check_first = [&](const RunRecord& r) {
    if (spec.metrics.empty()) {
      return;
    }
    std::set<std::string> reported;
    for (const auto& [name, value] : r.metrics) {
      reported.insert(name);
    }
    check_metric_names(spec.metrics, reported,
                       "the first run (" + spec.variant(r.run.variant).label() + ", seed " +
                           std::to_string(r.run.seed) + ", " + runner.runs_dir + "/" +
                           run_dir_name(r.run) + "/summary.json)");
  };
  // --fork-at: one worker per seed runs the shared prefix once and forks the variants.
  std::vector<RunRecord> records;
  {
    // Each seed's follow graph drawn by its first run, read back by the others (runs are
    // variant-major, so the two workers draw different seeds while variant 0 runs).
    const GraphCacheDir graphs;
    records = spec.fork_at.empty()
                  ? execute_runs(spec, runs, runner, opt.progress ? &err : nullptr, check_first)
                  : execute_forked_runs(spec, runs, runner, opt.progress ? &err : nullptr);
  }

  RunsHeader header{spec, opt.build_id, opt.scenario_hash};
  std::string lines = to_lines(header, records);
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
  RunsHeader read_header;
  auto read_back = read_lines({runs_path}, read_header);
  return finish(read_header, read_back, opt.out_dir, opt.plots, runner.runs_dir, opt.series,
                false, out, err);
}

int run_merge(const MergeOptions& opt, std::ostream& out, std::ostream& err) {
  if (opt.files.empty()) {
    throw std::invalid_argument("merge: no shard files given");
  }
  RunsHeader header;
  auto records = read_lines(opt.files, header);
  if (!opt.metrics.empty()) {
    header.spec.metrics = opt.metrics;  // re-tabulate: every record holds all its metrics
  }
  fs::create_directories(opt.out_dir);
  return finish(header, records, opt.out_dir, opt.plots, "", {}, true, out, err);
}

}  // namespace skysim::analysis
