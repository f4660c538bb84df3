#include "analysis/sweep_runner.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "analysis/worker_pool.hpp"

namespace skysim::analysis {

namespace fs = std::filesystem;

std::string read_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  }
  out << text;
  if (!out.flush()) {
    throw std::runtime_error("write failed: " + path);
  }
}

std::string run_dir_name(const RunSpec& run) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "v%03d-seed%llu", run.variant,
                static_cast<unsigned long long>(run.seed));
  return buf;
}

std::vector<std::string> worker_argv(const RunnerOptions& opt, const SweepSpec& spec,
                                     const RunSpec& run) {
  std::vector<std::string> argv{opt.program, "run", spec.scenario, "--seed",
                                std::to_string(run.seed)};
  for (const auto& [path, value] : spec.run_overrides(run.variant)) {
    argv.push_back("--set");
    argv.push_back(path + "=" + value);
  }
  if (!spec.until.empty()) {
    argv.push_back("--until");
    argv.push_back(spec.until);
  }
  argv.push_back("--out");
  argv.push_back((fs::path(opt.runs_dir) / run_dir_name(run)).string());
  argv.push_back("--quiet");
  return argv;
}

void read_summary(const std::string& dir, RunRecord& record) {
  std::string path = (fs::path(dir) / "summary.json").string();
  Json summary;
  try {
    summary = Json::parse(read_file_text(path));
    record.metrics = metrics_from_summary(summary);
  } catch (const JsonError& e) {
    throw JsonError(path + ": " + e.what());
  }
  if (auto f = summary.find("fingerprint")) {
    record.fingerprint = f->is_string() ? f->as_string() : format_double(f->as_number());
  }
}

namespace {

// The last non-empty line a failed worker printed: usually the error that stopped it.
std::string last_line(const std::string& log_path) {
  std::ifstream in(log_path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) {
      last = line;
    }
  }
  return last;
}

}  // namespace

std::vector<RunRecord> execute_runs(const SweepSpec& spec, const std::vector<RunSpec>& runs,
                                    const RunnerOptions& opt, std::ostream* progress,
                                    const std::function<void(const RunRecord&)>& check_first) {
  fs::create_directories(opt.runs_dir);
  std::vector<WorkerJob> jobs;
  for (const auto& run : runs) {
    fs::path dir = fs::path(opt.runs_dir) / run_dir_name(run);
    fs::create_directories(dir);
    jobs.push_back(WorkerJob{worker_argv(opt, spec, run), (dir / "worker.log").string()});
  }
  std::vector<RunRecord> records(runs.size());
  std::size_t finished = 0;
  auto collect = [&](std::size_t i, const WorkerExit& exit) {
    RunRecord& r = records[i];
    r.run = runs[i];
    r.exit_code = exit.exit_code;
    if (exit.exit_code == 0 && exit.signal == 0) {
      try {
        read_summary((fs::path(opt.runs_dir) / run_dir_name(r.run)).string(), r);
        r.ok = true;
      } catch (const std::exception& e) {
        r.failure = std::string("no usable summary: ") + e.what();
      }
    } else {
      std::string why = last_line(jobs[i].log_path);
      r.failure = exit.describe() + (why.empty() ? "" : ": " + why);
    }
    ++finished;
    if (progress != nullptr) {
      *progress << "[" << finished << "/" << runs.size() << "] run " << r.run.index << " "
                << spec.variant(r.run.variant).label() << " seed " << r.run.seed << ": "
                << (r.ok ? "ok" : r.failure) << "\n";
    }
    if (i == 0 && r.ok && check_first) {
      check_first(r);
    }
  };
  run_workers(jobs, opt.jobs, collect);
  return records;
}

}  // namespace skysim::analysis
