#include "validation/parallel.hpp"

#include <atomic>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

namespace skysim::validation {

void run_tasks(const std::vector<std::function<void()>>& tasks, int jobs) {
  if (jobs < 1) throw std::invalid_argument("--jobs must be >= 1, got " + std::to_string(jobs));
  std::vector<std::exception_ptr> errors(tasks.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < tasks.size(); i = next++) {
      try {
        tasks[i]();
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs && static_cast<std::size_t>(j) < tasks.size(); ++j) {
    threads.emplace_back(worker);
  }
  worker();
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace skysim::validation
