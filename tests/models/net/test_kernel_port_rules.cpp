// The model's port rules held against the kernel this test runs on. Each case of
// testbed/probes/tw-connect.sh (docs/testbed.md, "connect(2) and a bound socket's TIME_WAIT on
// another address") is played twice: on real sockets in a network namespace of the test's own
// (a forked child calls unshare(CLONE_NEWNET), brings lo up, narrows ip_local_port_range to 16
// ports) and on a NetNamespace with the same range. Every row's outcome (ok, EADDRINUSE,
// EADDRNOTAVAIL) must agree. Then three more kernel rules the models use: Linux 6.18's reset of
// a port's bind mark when its last bound socket leaves, the accept queue's size
// (net::accept_queue_capacity, used by the memcached server) and tcp_max_tw_buckets. Needs
// root (CAP_SYS_ADMIN) for the namespace; where it cannot be made the test prints "SKIP:" and
// why. Every loop is bounded (16 ports, 16 connects); the only wait is one 500 ms connect
// timeout.
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "models/net/socket_table.hpp"
#include "sim/simulation.hpp"

using namespace skysim::net;

namespace {

constexpr std::uint16_t kLo = 40000;
constexpr std::uint16_t kHi = 40015;  // 16 ports, as the probe
constexpr std::uint16_t kListenA = 7000;  // outside the range
constexpr std::uint16_t kListenB = 7001;

// How the range was filled, and what is tried afterwards (the probe's table).
enum class Fill { kBind, kConnect };
enum class Try { kConnect, kConnectOther, kBindFixed, kBindOther, kNoPortFixed };
struct Row {
  Fill fill;
  Try attempt;
  const char* what;
};
const std::vector<Row> kRows = {
    {Fill::kBind, Try::kConnect, "bound TIME_WAIT; connect() without bind, same destination"},
    {Fill::kBind, Try::kConnectOther, "bound TIME_WAIT; connect() without bind, other destination"},
    {Fill::kBind, Try::kBindFixed, "bound TIME_WAIT; bind(127.32.0.1, 0) + connect()"},
    {Fill::kBind, Try::kBindOther, "bound TIME_WAIT; bind(127.9.9.9, 0) + connect()"},
    {Fill::kBind, Try::kNoPortFixed, "bound TIME_WAIT; IP_BIND_ADDRESS_NO_PORT on 127.32.0.1"},
    {Fill::kConnect, Try::kConnect, "connect() TIME_WAIT; connect() without bind, same destination"},
    {Fill::kConnect, Try::kConnectOther, "connect() TIME_WAIT; connect() without bind, other dest"},
    {Fill::kConnect, Try::kBindFixed, "connect() TIME_WAIT; bind(127.32.0.1, 0) + connect()"},
    {Fill::kConnect, Try::kBindOther, "connect() TIME_WAIT; bind(127.9.9.9, 0) + connect()"},
    {Fill::kConnect, Try::kNoPortFixed, "connect() TIME_WAIT; IP_BIND_ADDRESS_NO_PORT on 127.32.0.1"},
};

const Ipv4 kFixed = Ipv4::parse("127.32.0.1");
const Ipv4 kOtherSource = Ipv4::parse("127.9.9.9");

// ---- the model's answer ----

const Endpoint kPeerA{kLoopback, kListenA};
const Endpoint kPeerB{kLoopback, kListenB};

NetSysctl probe_range(std::uint16_t hi) {
  NetSysctl s;
  s.port_lo = kLo;
  s.port_hi = hi;
  return s;
}

Errno model_outcome(const Row& row) {
  sim::Simulation sim(1);
  NetNamespace ns(sim, probe_range(kHi), "probe");
  const Endpoint a = kPeerA;
  const Endpoint b = kPeerB;
  for (int i = 0; i < kHi - kLo + 1; ++i) {
    DialOutcome out = row.fill == Fill::kBind ? ns.bind_connect(kFixed, a, 1) : ns.connect(a, 1);
    REQUIRE(out.ok());
    ns.established(out.socket);
    ns.close(out.socket, CloseMode::kActive);
  }
  switch (row.attempt) {
    case Try::kConnect:
      return ns.connect(a, 2).error.code;
    case Try::kConnectOther:
      return ns.connect(b, 2).error.code;
    case Try::kBindFixed:
      return ns.bind_connect(kFixed, a, 2).error.code;
    case Try::kBindOther:
      return ns.bind_connect(kOtherSource, a, 2).error.code;
    case Try::kNoPortFixed:
      return ns.bind_connect(kFixed, a, 2, true).error.code;
  }
  return Errno::kNone;
}

// ---- the kernel's answer (runs in the forked child, inside its own namespace) ----

Errno errno_of(int e) {
  switch (e) {
    case 0:
      return Errno::kNone;
    case EADDRINUSE:
      return Errno::kEADDRINUSE;
    case EADDRNOTAVAIL:
      return Errno::kEADDRNOTAVAIL;
    case ECONNREFUSED:
      return Errno::kECONNREFUSED;
    default:
      return static_cast<Errno>(100);  // anything else: never equal to the model's answer
  }
}

sockaddr_in addr(Ipv4 ip, std::uint16_t port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(ip.value);
  sa.sin_port = htons(port);
  return sa;
}

int listener(std::uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa = addr(kLoopback, port);
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || listen(fd, 64) != 0) {
    return -1;
  }
  return fd;
}

// One attempt on a real socket; 0 or the errno of the step that failed. The accepted end is
// closed after the client, so the client is the active closer (its TIME_WAIT), as in the probe.
int real_dial(int lst, std::uint16_t to, const Ipv4* source, bool no_port, bool keep_time_wait) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int err = 0;
  if (no_port) {
    int one = 1;
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
  }
  if (source != nullptr) {
    sockaddr_in sa = addr(*source, 0);
    if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
      err = errno;
    }
  }
  if (err == 0) {
    sockaddr_in peer = addr(kLoopback, to);
    if (connect(fd, reinterpret_cast<sockaddr*>(&peer), sizeof peer) != 0) {
      err = errno;
    }
  }
  int server_side = err == 0 ? accept(lst, nullptr, nullptr) : -1;
  if (!keep_time_wait) {
    linger l{1, 0};  // the attempt itself leaves nothing behind
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  }
  close(fd);
  if (server_side >= 0) {
    close(server_side);
  }
  return err;
}

bool bring_up_namespace(std::string& why) {
  if (unshare(CLONE_NEWNET) != 0) {
    why = std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
    return false;
  }
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) {
    why = "SIOCGIFFLAGS lo failed";
    return false;
  }
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
  if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0) {
    why = "SIOCSIFFLAGS lo failed";
    return false;
  }
  close(fd);
  auto write_sysctl = [&](const char* path, const std::string& value) {
    int f = open(path, O_WRONLY);
    bool ok = f >= 0 && write(f, value.data(), value.size()) == static_cast<ssize_t>(value.size());
    if (f >= 0) {
      close(f);
    }
    if (!ok) {
      why = std::string("cannot write ") + path;
    }
    return ok;
  };
  // tcp_tw_reuse stays at its default (2); a long reuse delay keeps the rows independent of
  // how long the fill takes on a loaded machine (the model's clock stands still).
  return write_sysctl("/proc/sys/net/ipv4/ip_local_port_range",
                      std::to_string(kLo) + " " + std::to_string(kHi)) &&
         write_sysctl("/proc/sys/net/ipv4/tcp_tw_reuse_delay", "60000");
}

// One row on real sockets, in a namespace made for it (the previous row's TIME_WAIT goes with
// the previous namespace). Returns the attempt's errno, or -1 with `why` set.
int kernel_row(const Row& row, std::string& why) {
  if (!bring_up_namespace(why)) {
    return -77;
  }
  int a = listener(kListenA);
  int b = listener(kListenB);
  if (a < 0 || b < 0) {
    why = "listen on 127.0.0.1:7000/7001 failed";
    return -1;
  }
  for (int i = 0; i < kHi - kLo + 1; ++i) {
    real_dial(a, kListenA, row.fill == Fill::kBind ? &kFixed : nullptr, false, true);
  }
  int e = 0;
  switch (row.attempt) {
    case Try::kConnect:
      e = real_dial(a, kListenA, nullptr, false, false);
      break;
    case Try::kConnectOther:
      e = real_dial(b, kListenB, nullptr, false, false);
      break;
    case Try::kBindFixed:
      e = real_dial(a, kListenA, &kFixed, false, false);
      break;
    case Try::kBindOther:
      e = real_dial(a, kListenA, &kOtherSource, false, false);
      break;
    case Try::kNoPortFixed:
      e = real_dial(a, kListenA, &kFixed, true, false);
      break;
  }
  close(a);
  close(b);
  return e;
}

// Linux 6.18 clears a port's bind mark when its last bind()-made socket leaves ("tcp: Update
// bind bucket state on port release"): a one-port range; A = connect() from 127.0.0.1 holds
// the port; B = bind(127.32.0.1, 0) shares it (another address). A connect() to another
// destination fails while B lives, and succeeds (sharing the port with A) once B is gone.
// Returns {errno while B lives, errno after B's RST close}.
std::pair<int, int> kernel_reset_case(std::string& why) {
  if (!bring_up_namespace(why)) {
    return {-77, -77};
  }
  int f = open("/proc/sys/net/ipv4/ip_local_port_range", O_WRONLY);
  std::string one_port = std::to_string(kLo) + " " + std::to_string(kLo);
  bool ok = f >= 0 && write(f, one_port.data(), one_port.size()) > 0;
  if (f >= 0) {
    close(f);
  }
  int a_l = listener(kListenA);
  int b_l = listener(kListenB);
  if (!ok || a_l < 0 || b_l < 0) {
    why = "one-port range or listeners failed";
    return {-1, -1};
  }
  auto open_conn = [&](const Ipv4* source) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (source != nullptr) {
      sockaddr_in sa = addr(*source, 0);
      if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
        return -1;
      }
    }
    sockaddr_in peer = addr(kLoopback, kListenA);
    return connect(fd, reinterpret_cast<sockaddr*>(&peer), sizeof peer) == 0 ? fd : -1;
  };
  int a = open_conn(nullptr);
  int b = open_conn(&kFixed);
  if (a < 0 || b < 0) {
    why = "could not open the two sockets sharing the port";
    return {-1, -1};
  }
  int while_bound = real_dial(b_l, kListenB, nullptr, false, false);
  linger l{1, 0};
  setsockopt(b, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  close(b);
  int after = real_dial(b_l, kListenB, nullptr, false, false);
  return {while_bound, after};
}

// A listener that never calls accept(): how many connect()s complete before one times out
// (SO_SNDTIMEO 500 ms, Go's dial timeout in gomemcache)? Bounded at 16 attempts.
constexpr int kProbeBacklog = 4;
int kernel_accept_queue(std::string& why) {
  if (!bring_up_namespace(why)) {
    return -77;
  }
  int lst = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa = addr(kLoopback, kListenA);
  if (bind(lst, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
      listen(lst, kProbeBacklog) != 0) {
    why = "listen failed";
    return -1;
  }
  std::vector<int> held;
  int completed = 0;
  for (int i = 0; i < 16; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{0, 500'000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    held.push_back(fd);
    if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
      break;  // the SYN was dropped: EINPROGRESS after the timeout
    }
    ++completed;
  }
  for (int fd : held) {
    close(fd);
  }
  close(lst);
  return completed;
}

// tcp_max_tw_buckets = 4, then the 16-port range filled by bind(127.32.0.1, 0) connections the
// client closes first: how many TIME_WAIT sockets does /proc/net/tcp show, and can
// bind(127.32.0.1, 0) still get a port (the sockets over the cap were destroyed)?
constexpr int kProbeTwBuckets = 4;
std::pair<int, int> kernel_tw_buckets(std::string& why) {
  if (!bring_up_namespace(why)) {
    return {-77, -77};
  }
  int f = open("/proc/sys/net/ipv4/tcp_max_tw_buckets", O_WRONLY);
  std::string cap = std::to_string(kProbeTwBuckets);
  bool ok = f >= 0 && write(f, cap.data(), cap.size()) > 0;
  if (f >= 0) {
    close(f);
  }
  int a = listener(kListenA);
  if (!ok || a < 0) {
    why = "cannot set tcp_max_tw_buckets or listen";
    return {-1, -1};
  }
  for (int i = 0; i < kHi - kLo + 1; ++i) {
    real_dial(a, kListenA, &kFixed, false, true);
  }
  int time_wait = 0;
  if (FILE* tcp = fopen("/proc/net/tcp", "r")) {
    char line[512];
    while (fgets(line, sizeof line, tcp) != nullptr) {
      unsigned st = 0;
      if (sscanf(line, " %*d: %*x:%*x %*x:%*x %x", &st) == 1 && st == 0x06) {
        ++time_wait;
      }
    }
    fclose(tcp);
  }
  int bind_after = real_dial(a, kListenA, &kFixed, false, false);
  close(a);
  return {time_wait, bind_after};
}

// Child: every row, then the reset case, then the accept queue, then tw buckets; one byte per outcome to `out`. Exit 77 with the
// reason on `out` when no namespace can be had.
[[noreturn]] void kernel_child(int out) {
  std::string why;
  std::vector<unsigned char> results;
  auto give_up = [&](int e) {
    (void)!write(out, why.data(), why.size());
    _exit(e == -77 ? 77 : 78);
  };
  for (const Row& row : kRows) {
    int e = kernel_row(row, why);
    if (e < 0) {
      give_up(e);
    }
    results.push_back(static_cast<unsigned char>(errno_of(e)));
  }
  auto [while_bound, after] = kernel_reset_case(why);
  if (while_bound < 0 || after < 0) {
    give_up(while_bound);
  }
  results.push_back(static_cast<unsigned char>(errno_of(while_bound)));
  results.push_back(static_cast<unsigned char>(errno_of(after)));
  int completed = kernel_accept_queue(why);
  if (completed < 0) {
    give_up(completed);
  }
  results.push_back(static_cast<unsigned char>(completed));
  auto [time_wait, bind_after] = kernel_tw_buckets(why);
  if (time_wait < 0 || bind_after < 0) {
    give_up(time_wait);
  }
  results.push_back(static_cast<unsigned char>(time_wait));
  results.push_back(static_cast<unsigned char>(errno_of(bind_after)));
  (void)!write(out, results.data(), results.size());
  _exit(0);
}

struct KernelRun {
  bool skipped = false;
  std::string why;
  std::vector<Errno> outcomes;
};

KernelRun run_on_kernel() {
  int p[2];
  REQUIRE(pipe(p) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(p[0]);
    kernel_child(p[1]);
  }
  close(p[1]);
  std::string bytes;
  char buf[256];
  for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;) {
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  close(p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  KernelRun run;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 77) {
    run.skipped = true;
    run.why = bytes;
    return run;
  }
  INFO("kernel probe child: " << bytes);
  REQUIRE(code == 0);
  for (char c : bytes) {
    run.outcomes.push_back(static_cast<Errno>(static_cast<unsigned char>(c)));
  }
  return run;
}

// The reset case on the model: {outcome while B lives, outcome after B's RST close}.
std::pair<Errno, Errno> model_reset_case() {
  sim::Simulation sim(1);
  NetNamespace ns(sim, probe_range(kLo), "probe");
  const Endpoint a = kPeerA;
  const Endpoint b = kPeerB;
  DialOutcome conn_a = ns.connect(a, 1);
  DialOutcome conn_b = ns.bind_connect(kFixed, a, 1);
  REQUIRE(conn_a.ok());
  REQUIRE(conn_b.ok());
  REQUIRE(conn_a.local.port == conn_b.local.port);
  ns.established(conn_a.socket);
  ns.established(conn_b.socket);
  Errno while_bound = ns.connect(b, 2).error.code;
  ns.close(conn_b.socket, CloseMode::kAbort);
  DialOutcome after = ns.connect(b, 2);
  ns.check_invariants();
  return {while_bound, after.error.code};
}

const char* outcome_name(Errno e) {
  return e == Errno::kNone ? "ok" : static_cast<int>(e) < kErrnoCount ? errno_name(e) : "other";
}

}  // namespace

TEST_CASE("the model's port rules agree with this kernel on every row of the tw-connect probe") {
  KernelRun kernel = run_on_kernel();
  if (kernel.skipped) {
    WARN("SKIP: no network namespace of our own (" << kernel.why
                                                    << "); run as root where unshare works");
    return;
  }
  REQUIRE(kernel.outcomes.size() == kRows.size() + 5);
  for (std::size_t i = 0; i < kRows.size(); ++i) {
    Errno model = model_outcome(kRows[i]);
    INFO(kRows[i].what << ": kernel " << outcome_name(kernel.outcomes[i]) << ", model "
                       << outcome_name(model));
    CHECK(model == kernel.outcomes[i]);
  }
  auto [model_bound, model_after] = model_reset_case();
  const Errno kernel_bound = kernel.outcomes[kRows.size()];
  const Errno kernel_after = kernel.outcomes[kRows.size() + 1];
  INFO("shared port, bound socket alive: kernel " << outcome_name(kernel_bound) << ", model "
                                                  << outcome_name(model_bound));
  INFO("shared port, bound socket gone: kernel " << outcome_name(kernel_after) << ", model "
                                                 << outcome_name(model_after));
  CHECK(model_bound == kernel_bound);
  CHECK(model_after == kernel_after);
  // The accept queue: the memcached model drops SYNs past accept_queue_capacity().
  const auto completed = static_cast<std::uint32_t>(kernel.outcomes[kRows.size() + 2]);
  INFO("listen(fd, " << kProbeBacklog << ") never accepted: " << completed << " connects completed");
  CHECK(completed == accept_queue_capacity(kProbeBacklog, 4096));
  // tcp_max_tw_buckets: sockets over the cap skip TIME_WAIT and free their port at once.
  sim::Simulation sim(1);
  NetSysctl capped = probe_range(kHi);
  capped.max_tw_buckets = kProbeTwBuckets;
  NetNamespace ns(sim, capped, "probe");
  for (int i = 0; i < kHi - kLo + 1; ++i) {
    DialOutcome out = ns.bind_connect(kFixed, kPeerA, 1);
    REQUIRE(out.ok());
    ns.established(out.socket);
    ns.close(out.socket, CloseMode::kActive);
  }
  const auto kernel_tw = static_cast<std::uint64_t>(kernel.outcomes[kRows.size() + 3]);
  const Errno kernel_bind = kernel.outcomes[kRows.size() + 4];
  const Errno model_bind = ns.bind_connect(kFixed, kPeerA, 2).error.code;
  INFO("tcp_max_tw_buckets " << kProbeTwBuckets << ": kernel " << kernel_tw << " TIME_WAIT, bind "
                             << outcome_name(kernel_bind) << "; model " << ns.time_wait_count()
                             << ", bind " << outcome_name(model_bind));
  CHECK(ns.time_wait_count() == kernel_tw);
  CHECK(model_bind == kernel_bind);
}
