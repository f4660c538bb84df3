#include "backends/localproc/local_process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace localproc {

int free_loopback_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("free_loopback_port: socket failed");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    close(fd);
    throw std::runtime_error("free_loopback_port: bind failed");
  }
  int port = ntohs(a.sin_port);
  close(fd);
  return port;
}

LocalProcess::LocalProcess(
    const std::string& name,
    const std::function<std::vector<std::string>(const std::filesystem::path&)>& make_args,
    const std::function<bool()>& ready, double ready_timeout_s)
    : name_(name) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / ("skysim-" + name + "-XXXXXX")).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error(name + ": mkdtemp failed");
  dir_ = buf.data();
  std::vector<std::string> args = make_args(dir_);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string log = (dir_ / "server.log").string();
  pid_ = fork();
  if (pid_ < 0) {
    std::filesystem::remove_all(dir_);
    throw std::runtime_error(name + ": fork failed");
  }
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execvp(argv[0], argv.data());
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<long>(ready_timeout_s * 1000));
  for (;;) {
    if (ready()) return;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      std::string tail = log_tail();
      std::filesystem::remove_all(dir_);
      throw std::runtime_error(
          name + ": '" + args[0] + "' exited at start (exit " + std::to_string(code) +
          (code == 127 ? ": not installed, see scripts/setup-debian.sh" : "") + "):\n" + tail);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      std::string tail = log_tail();
      stop();
      std::filesystem::remove_all(dir_);
      throw std::runtime_error(name + ": did not answer within " + std::to_string(ready_timeout_s) +
                               " s:\n" + tail);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string LocalProcess::log_tail() const {
  std::ifstream in(dir_ / "server.log");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

void LocalProcess::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {  // 5 s
    gone = waitpid(pid_, &status, WNOHANG) == pid_;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!gone) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  pid_ = -1;
}

LocalProcess::~LocalProcess() {
  stop();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace localproc
