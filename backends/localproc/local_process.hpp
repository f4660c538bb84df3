#pragma once
// A server the tests start themselves: its own temporary directory (removed at the end), its
// output in <dir>/server.log, stopped with SIGTERM and, after a bounded wait, SIGKILL — in the
// destructor, so also when a test fails or throws. The child has PR_SET_PDEATHSIG, so it dies
// with the test process even when that is killed outright (only the directory is left then).
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace localproc {

class LocalProcess {
 public:
  // `make_args(dir)` gives argv (argv[0] is the binary, looked up on PATH). `ready()` is polled
  // every 50 ms for at most ready_timeout_s; it returns true once the server answers.
  // Throws std::runtime_error naming the cause (not installed, exited, did not answer) with the
  // end of the server's log.
  LocalProcess(
      const std::string& name,
      const std::function<std::vector<std::string>(const std::filesystem::path&)>& make_args,
      const std::function<bool()>& ready, double ready_timeout_s = 20);
  ~LocalProcess();
  LocalProcess(const LocalProcess&) = delete;
  LocalProcess& operator=(const LocalProcess&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  pid_t pid() const { return pid_; }
  // Stops the server now (idempotent); the directory stays until destruction.
  void stop();

 private:
  std::string log_tail() const;
  std::string name_;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
};

// A TCP port nothing listens on now (bound to 127.0.0.1:0 and released).
int free_loopback_port();

}  // namespace localproc
