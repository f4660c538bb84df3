#pragma once
// Independent replications side by side: each task is one whole single-threaded simulation
// writing only its own result slot, so the table is identical for any number of jobs.
// (Parallelism across seeds only, never inside a run — DESIGN.md.)
#include <functional>
#include <vector>

namespace skysim::validation {

// Runs every task on up to `jobs` threads (jobs >= 1). If tasks throw, the exception of the
// lowest-numbered failing task is rethrown after all have finished.
void run_tasks(const std::vector<std::function<void()>>& tasks, int jobs);

}  // namespace skysim::validation
