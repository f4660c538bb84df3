#pragma once
// Runs child programs at most N at a time (fork + exec), each with its output captured to a log
// file. This is how compare runs simulations: one process per run, so nothing is shared inside
// a run and a crash, a leak or an abort in one run cannot touch another.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skysim::analysis {

struct WorkerJob {
  std::vector<std::string> argv;  // argv[0] is the program path (not searched in PATH)
  std::string log_path;           // stdout and stderr of the child; empty = /dev/null
};

struct WorkerExit {
  int exit_code = 0;  // exit status, or 128 + N when killed by signal N
  int signal = 0;     // the signal that killed the child, 0 if it exited
  std::string describe() const;  // "exit 3" / "killed by signal 6 (Aborted)"
};

// Waits for whichever child of this process ends first: its pid and how it ended, or nullopt
// when a signal interrupted the wait (EINTR; call again). Throws std::system_error otherwise.
struct ChildExit {
  int pid = 0;
  WorkerExit exit;
};
std::optional<ChildExit> wait_any_child();

// Waits for one of `running` (pid -> job index) to end, removes it and returns its index and
// exit; nullopt when the wait was interrupted or another child of the process ended.
struct JobExit {
  std::size_t index = 0;
  WorkerExit exit;
};
std::optional<JobExit> wait_for_job(std::map<int, std::size_t>& running);

// Runs every job, at most `parallelism` at once, in the order given. `on_done` is called from
// the calling thread as each job ends (completion order, which may differ from job order).
// Returns the exits in job order. Throws std::system_error when fork fails. When on_done
// throws, the jobs still running are killed (SIGKILL) and reaped, none is started, and the
// exception propagates.

std::vector<WorkerExit> run_workers(const std::vector<WorkerJob>& jobs, int parallelism,
                                    const std::function<void(std::size_t, const WorkerExit&)>&
                                        on_done = {});

// The same pool fed one job at a time: `next(k)` gives job k, or nullopt to start no more, and
// is called only when a worker slot is free, so a caller can decide (budget, a failure seen in
// `on_done`) what to start while earlier jobs still run, with no barrier between batches.
// Returns how many jobs were started; every one has ended (and had its on_done) on return.
// On an exception (from next, on_done or fork) the running jobs are killed and reaped.
std::size_t run_worker_stream(const std::function<std::optional<WorkerJob>(std::size_t)>& next,
                              int parallelism,
                              const std::function<void(std::size_t, const WorkerExit&)>& on_done);

// The path of the running executable (/proc/self/exe resolved), for re-executing ourselves.
std::string self_executable();

}  // namespace skysim::analysis
