// Measures what a failed bind(ip, 0) costs this machine's kernel when every ephemeral port of
// `ip` is taken by a TIME_WAIT socket to the same destination: the state of the April 2026
// data plane (`dial tcp 127.32.0.1:0->127.0.0.1:11211: bind: address already in use`).
// It pins the memcached client's `port_scan_ns` (kernel time per port examined).
//
// Usage: bind_probe PORTS_IN_RANGE SOURCE_IP FAILED_BINDS   (run as root in a network namespace you may
// change: it sets net.ipv4.ip_local_port_range). Prints one line of key=value figures.
// Not part of skysim; built and run by bench/port-search/measure.sh.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>

namespace {

constexpr int kLow = 32768;  // Linux's default low end of the ephemeral range

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "bind_probe: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

sockaddr_in addr(const char* ip, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

double sys_ns() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_stime.tv_sec * 1e9 + ru.ru_stime.tv_usec * 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: bind_probe PORTS_IN_RANGE SOURCE_IP FAILED_BINDS\n");
    return 2;
  }
  const int ports = std::atoi(argv[1]);
  const char* source_ip = argv[2];
  const int binds = std::atoi(argv[3]);
  // 28232 = Linux's default range, 32768-60999. A source IP not used in the last 60 s keeps
  // earlier runs' TIME_WAIT sockets out of the count.
  if (ports < 100 || ports > 28232 || binds < 1) {
    std::fprintf(stderr, "bind_probe: PORTS_IN_RANGE in [100, 28232], FAILED_BINDS >= 1\n");
    return 2;
  }
  in_addr probe{};
  if (inet_pton(AF_INET, source_ip, &probe) != 1) {
    std::fprintf(stderr, "bind_probe: SOURCE_IP %s is not an IPv4 address\n", source_ip);
    return 2;
  }
  {
    std::ofstream range("/proc/sys/net/ipv4/ip_local_port_range");
    range << kLow << ' ' << kLow + ports - 1 << '\n';
    if (!range) die("set ip_local_port_range");
  }

  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in server = addr("127.0.0.1", 11311);
  if (bind(listener, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) die("bind listener");
  if (listen(listener, 4096) != 0) die("listen");

  // Fill: each connection from 127.32.0.1:<ephemeral> is closed by the client first, so the
  // client side ends in TIME_WAIT (60 s) holding its port, as the dead process's sockets did.
  const sockaddr_in source = addr(source_ip, 0);
  int filled = 0;
  for (;;) {
    const int c = socket(AF_INET, SOCK_STREAM, 0);
    if (c < 0) die("socket");
    if (bind(c, reinterpret_cast<const sockaddr*>(&source), sizeof source) != 0) {
      if (errno != EADDRINUSE) die("bind while filling");
      close(c);
      break;
    }
    if (connect(c, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) die("connect");
    const int s = accept(listener, nullptr, nullptr);
    if (s < 0) die("accept");
    close(c);
    close(s);
    ++filled;
  }

  // Measure: the failed dials' socket + bind + close, as Go's dial does them.
  double bind_cpu = 0;
  const double sys0 = sys_ns();
  const double cpu0 = thread_cpu_ns();
  int failures = 0;
  for (int i = 0; i < binds; ++i) {
    const int c = socket(AF_INET, SOCK_STREAM, 0);
    const double t0 = thread_cpu_ns();
    const int rc = bind(c, reinterpret_cast<const sockaddr*>(&source), sizeof source);
    const int err = errno;
    bind_cpu += thread_cpu_ns() - t0;
    if (rc == 0 || err != EADDRINUSE) {
      std::fprintf(stderr, "bind_probe: bind %d did not fail with EADDRINUSE\n", i);
      return 1;
    }
    ++failures;
    close(c);
  }
  const double cpu = thread_cpu_ns() - cpu0;
  const double sys = sys_ns() - sys0;
  std::printf("source=%s ports=%d filled=%d failed_binds=%d bind_us=%.1f ns_per_port=%.1f "
              "socket_bind_close_us=%.1f sys_share=%.3f\n",
              source_ip, ports, filled, failures, bind_cpu / failures / 1e3, bind_cpu / failures / ports,
              cpu / failures / 1e3, sys / cpu);
  close(listener);
  return 0;
}
