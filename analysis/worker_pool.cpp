#include "analysis/worker_pool.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <map>
#include <stdexcept>
#include <system_error>

namespace skysim::analysis {

namespace {

// In the child: point stdout/stderr at the log, then become the program. Only async-signal-safe
// calls between fork and exec.
[[noreturn]] void exec_child(const std::vector<char*>& argv, const char* log_path) {
  int fd = ::open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    ::_exit(126);
  }
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull >= 0) {
    ::dup2(devnull, STDIN_FILENO);
  }
  ::execv(argv[0], argv.data());
  const char* msg = "worker: exec failed: ";
  (void)!::write(STDERR_FILENO, msg, std::strlen(msg));
  const char* why = std::strerror(errno);
  (void)!::write(STDERR_FILENO, why, std::strlen(why));
  (void)!::write(STDERR_FILENO, "\n", 1);
  ::_exit(127);
}

// A waitpid(2) status as a WorkerExit (exit code, or 128 + signal when killed).
WorkerExit decode_wait_status(int status) {
  WorkerExit e;
  if (WIFEXITED(status)) {
    e.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    e.signal = WTERMSIG(status);
    e.exit_code = 128 + e.signal;
  }
  return e;
}

}  // namespace

std::optional<ChildExit> wait_any_child() {
  int status = 0;
  pid_t pid = ::waitpid(-1, &status, 0);
  if (pid < 0) {
    if (errno == EINTR) {
      return std::nullopt;
    }
    throw std::system_error(errno, std::generic_category(), "waitpid");
  }
  return ChildExit{pid, decode_wait_status(status)};
}

std::optional<JobExit> wait_for_job(std::map<int, std::size_t>& running) {
  auto child = wait_any_child();
  if (!child) {
    return std::nullopt;
  }
  auto it = running.find(child->pid);
  if (it == running.end()) {
    return std::nullopt;  // not ours to account for
  }
  JobExit done{it->second, child->exit};
  running.erase(it);
  return done;
}

std::string WorkerExit::describe() const {
  if (signal != 0) {
    return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
  return "exit " + std::to_string(exit_code);
}

std::size_t run_worker_stream(const std::function<std::optional<WorkerJob>(std::size_t)>& next,
                              int parallelism,
                              const std::function<void(std::size_t, const WorkerExit&)>& on_done) {
  if (parallelism < 1) {
    throw std::invalid_argument("--jobs must be at least 1, got " + std::to_string(parallelism));
  }
  std::map<pid_t, std::size_t> running;  // our children only; other pids are not ours to reap
  std::size_t started = 0;
  bool more = true;
  auto start_one = [&](const WorkerJob& job) {
    if (job.argv.empty()) {
      throw std::invalid_argument("worker job " + std::to_string(started) + " has no program");
    }
    // Prepared before fork: the child must not allocate.
    std::vector<char*> argv;
    for (const auto& a : job.argv) {
      argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    const char* log = job.log_path.empty() ? "/dev/null" : job.log_path.c_str();
    pid_t pid = ::fork();
    if (pid < 0) {
      throw std::system_error(errno, std::generic_category(), "fork");
    }
    if (pid == 0) {
      exec_child(argv, log);
    }
    running[pid] = started++;
  };
  // An exception from on_done (compare found the sweep is wrong: a metric no run reports),
  // from next or from fork stops the pool: the children still running are killed and reaped,
  // so no worker outlives the call or burns CPU on a sweep that will not be reported.
  try {
    while (more || !running.empty()) {
      while (more && static_cast<int>(running.size()) < parallelism) {
        std::optional<WorkerJob> job = next(started);
        if (!job) {
          more = false;
          break;
        }
        start_one(*job);
      }
      if (running.empty()) {
        break;
      }
      auto done = wait_for_job(running);
      if (!done) {
        continue;
      }
      if (on_done) {
        on_done(done->index, done->exit);
      }
    }
  } catch (...) {
    for (const auto& [pid, index] : running) {
      ::kill(pid, SIGKILL);
    }
    for (const auto& [pid, index] : running) {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    throw;
  }
  return started;
}

std::vector<WorkerExit> run_workers(const std::vector<WorkerJob>& jobs, int parallelism,
                                    const std::function<void(std::size_t, const WorkerExit&)>&
                                        on_done) {
  std::vector<WorkerExit> exits(jobs.size());
  run_worker_stream(
      [&](std::size_t k) -> std::optional<WorkerJob> {
        if (k >= jobs.size()) {
          return std::nullopt;
        }
        return jobs[k];
      },
      parallelism,
      [&](std::size_t k, const WorkerExit& e) {
        exits[k] = e;
        if (on_done) {
          on_done(k, exits[k]);
        }
      });
  return exits;
}

std::string self_executable() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n < 0) {
    throw std::system_error(errno, std::generic_category(), "readlink /proc/self/exe");
  }
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace skysim::analysis
