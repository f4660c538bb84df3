#include "analysis/fork.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <ostream>
#include <stdexcept>
#include <system_error>

namespace skysim::analysis {

namespace fs = std::filesystem;

Json ForkPlan::to_json() const {
  JsonArray bs;
  for (const auto& b : branches) {
    bs.push_back(JsonObject{{"index", b.run.index},
                            {"variant", b.run.variant},
                            {"dir", b.dir},
                            {"overrides", overrides_json(b.overrides)}});
  }
  return JsonObject{{"scenario", scenario}, {"seed", seed},
                    {"fork_at", fork_at},   {"jobs", jobs},
                    {"set", overrides_json(sets)}, {"until", until},
                    {"branches", std::move(bs)}};
}

ForkPlan ForkPlan::from_json(const Json& j) {
  ForkPlan p;
  p.scenario = j.at("scenario").as_string("plan.scenario");
  p.seed = j.at("seed").as_uint64("plan.seed");
  p.fork_at = j.at("fork_at").as_string("plan.fork_at");
  p.jobs = static_cast<int>(j.at("jobs").as_int("plan.jobs"));
  if (p.jobs < 1) {
    throw JsonError("plan.jobs must be at least 1");
  }
  if (auto sets = j.find("set")) {
    p.sets = overrides_from_json(*sets, "plan.set");
  }
  if (auto until = j.find("until")) {
    p.until = until->as_string("plan.until");
  }
  for (const auto& b : j.at("branches").as_array("plan.branches")) {
    ForkBranch fb;
    fb.run.index = static_cast<int>(b.at("index").as_int("plan.branches[].index"));
    fb.run.variant = static_cast<int>(b.at("variant").as_int("plan.branches[].variant"));
    fb.run.seed = p.seed;
    fb.dir = b.at("dir").as_string("plan.branches[].dir");
    fb.overrides = overrides_from_json(b.at("overrides"), "plan.branches[].overrides");
    p.branches.push_back(std::move(fb));
  }
  if (p.branches.empty()) {
    throw JsonError("plan.branches is empty");
  }
  return p;
}

std::vector<ForkPlan> fork_plans(const SweepSpec& spec, const std::vector<RunSpec>& runs,
                                 const std::string& runs_dir, int jobs) {
  if (spec.fork_at.empty()) {
    throw std::invalid_argument("fork_plans: the sweep has no --fork-at");
  }
  if (jobs < 1) {
    throw std::invalid_argument("--jobs must be at least 1, got " + std::to_string(jobs));
  }
  std::vector<ForkPlan> plans;
  std::map<std::uint64_t, std::size_t> by_seed;
  for (const auto& r : runs) {
    auto [it, fresh] = by_seed.emplace(r.seed, plans.size());
    if (fresh) {
      ForkPlan p;
      p.scenario = spec.scenario;
      p.seed = r.seed;
      p.fork_at = spec.fork_at;
      p.sets = spec.sets;
      p.until = spec.until;
      plans.push_back(std::move(p));
    }
    plans[it->second].branches.push_back(ForkBranch{
        r, spec.variant(r.variant).overrides, (fs::path(runs_dir) / run_dir_name(r)).string()});
  }
  int per_worker = std::max(1, jobs / std::max<int>(1, static_cast<int>(plans.size())));
  for (auto& p : plans) {
    p.jobs = per_worker;
  }
  return plans;
}

namespace {

std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) {
      last = line;
    }
  }
  return last;
}

std::string plan_file_name(std::uint64_t seed) {
  return "fork-seed" + std::to_string(seed) + ".plan.json";
}

}  // namespace

std::vector<RunRecord> execute_forked_runs(const SweepSpec& spec, const std::vector<RunSpec>& runs,
                                           const RunnerOptions& opt, std::ostream* progress) {
  fs::create_directories(opt.runs_dir);
  auto plans = fork_plans(spec, runs, opt.runs_dir, opt.jobs);
  std::vector<WorkerJob> jobs;
  std::vector<std::string> worker_logs;
  for (const auto& p : plans) {
    for (const auto& b : p.branches) {
      fs::create_directories(b.dir);
      fs::remove(fs::path(b.dir) / kBranchExitFile);  // a stale one must not pass for this run
    }
    auto plan_path = (fs::path(opt.runs_dir) / plan_file_name(p.seed)).string();
    write_file_text(plan_path, p.to_json().dump_pretty());
    worker_logs.push_back(
        (fs::path(opt.runs_dir) / ("fork-seed" + std::to_string(p.seed) + ".log")).string());
    jobs.push_back(WorkerJob{{opt.program, kForkWorkerCommand, plan_path}, worker_logs.back()});
  }
  std::vector<WorkerExit> worker_exits(plans.size());
  std::size_t finished = 0;
  run_workers(jobs, std::min<int>(opt.jobs, static_cast<int>(plans.size())),
              [&](std::size_t i, const WorkerExit& e) {
                worker_exits[i] = e;
                ++finished;
                if (progress != nullptr) {
                  *progress << "[" << finished << "/" << plans.size() << "] seed " << plans[i].seed
                            << " (" << plans[i].branches.size() << " branches): " << e.describe()
                            << "\n";
                }
              });

  std::map<std::uint64_t, std::size_t> plan_of_seed;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    plan_of_seed[plans[i].seed] = i;
  }
  std::vector<RunRecord> records(runs.size());
  std::map<std::uint64_t, std::string> prefix_of_seed;  // first branch's, to check the others
  for (std::size_t i = 0; i < runs.size(); ++i) {
    RunRecord& r = records[i];
    r.run = runs[i];
    std::size_t pi = plan_of_seed.at(r.run.seed);
    fs::path dir = fs::path(opt.runs_dir) / run_dir_name(r.run);
    fs::path exit_file = dir / kBranchExitFile;
    if (!fs::exists(exit_file)) {
      // The branch never ran: the prefix (or the plan) failed in the seed's worker.
      const WorkerExit& w = worker_exits[pi];
      std::string why = last_line_of(worker_logs[pi]);
      r.exit_code = w.exit_code == 0 ? 1 : w.exit_code;
      r.failure = "fork worker " + w.describe() + (why.empty() ? "" : ": " + why);
      continue;
    }
    std::string exit_text = read_file_text(exit_file.string());
    while (!exit_text.empty() && exit_text.back() == '\n') {
      exit_text.pop_back();
    }
    if (exit_text != "exit 0") {
      std::string why = last_line_of((dir / "worker.log").string());
      r.exit_code = 1;
      r.failure = "branch " + exit_text + (why.empty() ? "" : ": " + why);
      continue;
    }
    try {
      read_summary(dir.string(), r);
      Json summary = Json::parse(read_file_text((dir / "summary.json").string()));
      std::string prefix =
          summary.at("fork").at("prefix_fingerprint").as_string("fork.prefix_fingerprint");
      auto [it, fresh] = prefix_of_seed.emplace(r.run.seed, prefix);
      if (!fresh && it->second != prefix) {
        r.failure = "prefix fingerprint " + prefix + " differs from " + it->second +
                    " of another branch of seed " + std::to_string(r.run.seed);
        continue;
      }
      r.ok = true;
    } catch (const std::exception& e) {
      r.failure = std::string("no usable summary: ") + e.what();
    }
  }
  return records;
}

namespace {

[[noreturn]] void run_branch_child(std::size_t i, const std::string& log_path,
                                   const std::function<int(std::size_t)>& body) {
  int code = 1;
  int fd = ::open(log_path.empty() ? "/dev/null" : log_path.c_str(),
                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    ::_exit(126);
  }
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  ::close(fd);
  try {
    code = body(i);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "branch %zu: error: %s\n", i, e.what());
    code = 1;
  } catch (...) {
    std::fprintf(stderr, "branch %zu: unknown exception\n", i);
    code = 1;
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  // _exit: the parent's objects (the simulation, open files) belong to the parent.
  ::_exit(code);
}

}  // namespace

std::vector<WorkerExit> fork_branches(std::size_t count, int parallelism,
                                      const std::vector<std::string>& log_paths,
                                      const std::function<int(std::size_t)>& body) {
  if (parallelism < 1) {
    throw std::invalid_argument("fork_branches: parallelism must be at least 1");
  }
  if (log_paths.size() != count) {
    throw std::invalid_argument("fork_branches: one log path per branch");
  }
  std::vector<WorkerExit> exits(count);
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0;
  while (next < count || !running.empty()) {
    while (next < count && static_cast<int>(running.size()) < parallelism) {
      // Buffered output would otherwise be written once by the parent and once per child.
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      pid_t pid = ::fork();
      if (pid < 0) {
        throw std::system_error(errno, std::generic_category(), "fork");
      }
      if (pid == 0) {
        run_branch_child(next, log_paths[next], body);
      }
      running[pid] = next++;
    }
    if (auto done = wait_for_job(running)) {
      exits[done->index] = done->exit;
    }
  }
  return exits;
}

void add_fork_to_summary(const std::string& summary_path, const Json& fork) {
  std::string text = read_file_text(summary_path);
  auto open = text.find_first_not_of(" \t\r\n");
  auto close = text.find_last_not_of(" \t\r\n");
  if (open == std::string::npos || text[open] != '{' || text[close] != '}' || close == open) {
    throw std::runtime_error(summary_path + ": not a JSON object");
  }
  auto body_end = text.find_last_not_of(" \t\r\n", close - 1);
  bool empty = body_end == open;
  text.insert(body_end + 1, std::string(empty ? "" : ",") + "\n  \"fork\": " + fork.dump());
  write_file_text(summary_path, text);
}

}  // namespace skysim::analysis
