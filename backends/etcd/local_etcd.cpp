#include "backends/etcd/local_etcd.hpp"

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
#include <vector>

#include "backends/etcd/client.hpp"

namespace etcd {

int free_loopback_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("free_loopback_port: socket failed");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
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

LocalEtcd::LocalEtcd(const std::string& binary, double ready_timeout_s) {
  std::string pattern = (std::filesystem::temp_directory_path() / "skysim-etcd-XXXXXX").string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("LocalEtcd: mkdtemp failed");
  dir_ = buf.data();
  int client_port = free_loopback_port();
  int peer_port = free_loopback_port();
  endpoint_ = "http://127.0.0.1:" + std::to_string(client_port);
  std::string peer = "http://127.0.0.1:" + std::to_string(peer_port);
  std::vector<std::string> args = {binary,
                                   "--name=skysim",
                                   "--data-dir=" + (dir_ / "data").string(),
                                   "--listen-client-urls=" + endpoint_,
                                   "--advertise-client-urls=" + endpoint_,
                                   "--listen-peer-urls=" + peer,
                                   "--initial-advertise-peer-urls=" + peer,
                                   "--initial-cluster=skysim=" + peer,
                                   "--log-level=warn"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string log = (dir_ / "etcd.log").string();
  pid_ = fork();
  if (pid_ < 0) {
    std::filesystem::remove_all(dir_);
    throw std::runtime_error("LocalEtcd: fork failed");
  }
  if (pid_ == 0) {
    // The child: etcd dies with the test process even if that is killed outright.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execvp(binary.c_str(), argv.data());
    _exit(127);
  }
  Client probe(endpoint_, 500);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<long>(ready_timeout_s * 1000));
  for (;;) {
    try {
      probe.range({"skysim/probe", "", 0, 0, false});
      return;
    } catch (const Unreachable&) {
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      std::string tail = log_tail();
      std::filesystem::remove_all(dir_);
      throw std::runtime_error("LocalEtcd: '" + binary + "' exited at start (exit " +
                               std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                               "; 127: not installed, see scripts/setup-debian.sh):\n" + tail);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      std::string tail = log_tail();
      stop();
      throw std::runtime_error("LocalEtcd: etcd did not answer within " +
                               std::to_string(ready_timeout_s) + " s:\n" + tail);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string LocalEtcd::log_tail() const {
  std::ifstream in(dir_ / "etcd.log");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

void LocalEtcd::stop() {
  if (pid_ > 0) {
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
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

LocalEtcd::~LocalEtcd() { stop(); }

}  // namespace etcd
