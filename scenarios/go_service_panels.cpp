#include "scenarios/go_service_panels.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "scenarios/machine.hpp"

namespace skysim::scenarios {

namespace {

double size_of(const HostContext& h, const char* name) {
  return static_cast<double>(h.params.size_bytes(name));
}

}  // namespace

std::vector<sim::PanelLimit> panel_limits(const std::vector<HostContext>& hosts,
                                          const std::string& what,
                                          const std::function<double(const HostContext&)>& value) {
  std::vector<std::pair<double, std::string>> seen;
  for (const HostContext& h : hosts) {
    const double v = value(h);
    if (v <= 0) continue;
    const bool known = std::any_of(seen.begin(), seen.end(),
                                   [v](const auto& e) { return e.first == v; });
    if (!known) seen.emplace_back(v, h.path());
  }
  std::vector<sim::PanelLimit> out;
  for (const auto& [v, host] : seen) {
    out.push_back({seen.size() > 1 ? what + " (" + host + ")" : what, v});
  }
  return out;
}

std::vector<sim::ReportPanel> go_service_panels(const std::vector<HostContext>& hosts) {
  using sim::PanelHow;
  auto threads = sim::ReportPanel{
      .title = "OS threads of the Go process (Ms + sysmon)",
      .series = {"go.threads"},
      .unit = "threads",
      .log_y = true,
      .limits = panel_limits(hosts, "max_threads", [](const HostContext& h) {
        return static_cast<double>(h.params.count("max_threads"));
      })};
  // A host on a machine has the machine's kernel, whose range its own parameters do not say.
  auto time_wait = sim::ReportPanel{
      .title = "TCP sockets in TIME_WAIT against the ephemeral port range",
      .series = {"net.time_wait"},
      .unit = "sockets",
      .limits = panel_limits(hosts, "port range", [](const HostContext& h) {
        if (!h.machine.empty()) return 0.0;
        const PortRangeSysctl range(h.params, h.scale);
        return static_cast<double>(range.hi() - range.lo() + 1);
      })};
  auto success = sim::ReportPanel{
      .title = "User requests answered within the deadline, per datacenter and interval",
      .series = {"user.requests.good", "user.requests.bad"},
      .unit = "success (%)",
      .how = PanelHow::kSharePercent};
  auto memory_limits = panel_limits(hosts, "GOMEMLIMIT",
                                   [](const HostContext& h) { return size_of(h, "gomemlimit"); });
  auto container = panel_limits(hosts, "container limit",
                               [](const HostContext& h) { return size_of(h, "memory_limit"); });
  memory_limits.insert(memory_limits.end(), container.begin(), container.end());
  auto memory = sim::ReportPanel{.title = "Process RSS against its memory limits",
                                 .series = {"go.rss_bytes"},
                                 .unit = "MiB",
                                 .divide_by = 1024.0 * 1024.0,
                                 .limits = std::move(memory_limits)};
  auto gc = sim::ReportPanel{.title = "Longest GC stop-the-world pause since the process started",
                             .series = {"go.stw_peak_ns"},
                             .unit = "µs",
                             .divide_by = 1000,
                             .log_y = true};
  auto errors = sim::ReportPanel{.title = "Log lines written and failed dials, per client",
                                 .series = {"log.lines", "client.dial_errors"},
                                 .unit = "per second",
                                 .how = PanelHow::kRate};
  auto latency = sim::ReportPanel{.title = "Handler latency, P99 per interval",
                                  .series = {"handler.latency_ns:p99"},
                                  .unit = "ms",
                                  .divide_by = 1e6,
                                  .log_y = true};
  auto deaths = sim::ReportPanel{
      .title = "OOM kills, evictions and crashes of the process (cumulative)",
      .series = {"go.oom_kills", "go.evictions", "go.crashes"},
      .unit = "count"};
  return {threads, time_wait, success, memory, gc, errors, latency, deaths};
}

}  // namespace skysim::scenarios
