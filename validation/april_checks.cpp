// Each replication is the real April scenario file narrowed to the Monday spiral: the window
// starts at Monday 08:00 with fresh processes and the batch client at its Monday rate, and no
// timeline (no band-aid, no fix), so the window is all spiral. The west datacenter runs the
// same data plane under the same user load without the batch client: its peak is the healthy
// thread count of the same process, measured in the same run.
//
// Thread counts are at simulated size (the file's scale, 0.05); the scenario scales cores with
// everything else, so a count divided by `scale` is the full-size figure the post-mortem gives.
//
// The replay's default is Go's own semantics on Linux's scheduler: the log fd's write lock, a
// sysmon free to park between requests, the cores handed out as EEVDF does. Two more sets of
// windows run the named alternatives whose thread ratios the post-mortem's figure rules out: the
// post-mortem's account (`variant=postmortem`: every blocked log write holds a thread, sysmon
// backed off, cores shared equally) and Go's semantics on equally shared cores. The restarts
// into TIME_WAIT are read from the post-mortem variant's windows: the default is not killed at
// the replay's batch rate, so it has no restart to read (docs/april-2026.md).
//
// The file writes the data plane as parts (a memcached sidecar, a Scylla cluster, a go-service
// whose program is the data plane's handlers), so the figures come out of the composed parts.
#include "validation/april_checks.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "validation/parallel.hpp"
#include "validation/queue_server_run.hpp"

namespace skysim::validation {
namespace {

constexpr int kSeeds = 4;  // each window replays hours of the spiral: a few seeds, not ten
const char* kEast = "{host=east/dataplane/0}";
const char* kWest = "{host=west/dataplane/0}";

struct MondayWindow {
  double scale = 1;
  double healthy_threads = 0;  // west peak, simulated size
  double surge_threads = 0;    // east peak
  double median_uptime_min = 0;
  double restarts = 0;
  double restarts_into_time_wait = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The post-mortem's account, the scenario's named variant.
const std::vector<std::string> kPostMortem{"variant=postmortem"};

// Go's semantics (the default's fd write lock and sysmon) with the cores shared equally
// (processor sharing) instead of EEVDF, in both datacenters (the west is the healthy baseline).
const std::vector<std::string> kGoSharedCores{
    "datacenters.east.services.dataplane.params.core_sharing=processor_sharing",
    "datacenters.west.services.dataplane.params.core_sharing=processor_sharing"};

// The loader's overrides narrowing a replay to the Monday window: from 08:00, the batch client
// (the source `batch-service`) at its Monday rate from the start, no timeline; then `extra`.
scenarios::LoadOptions monday_options(const std::string& duration, std::uint64_t seed,
                                      const std::string& batch,
                                      const std::vector<std::string>& extra) {
  scenarios::LoadOptions o;
  std::vector<std::string> window{"epoch=2026-04-06T08:00:00Z", "duration=" + duration,
                                  "timeline=[]", "seed=" + std::to_string(seed),
                                  "sources." + batch + ".start=2026-04-06T08:00:00Z",
                                  "sources." + batch + ".rate=0.05/s"};
  window.insert(window.end(), extra.begin(), extra.end());
  for (const std::string& s : window) o.overrides.push_back(scenarios::parse_override(s));
  return o;
}

MondayWindow monday_window(const std::string& file, const std::string& duration,
                           std::uint64_t seed, const std::vector<std::string>& extra) {
  using namespace skysim::scenarios;
  Scenario sc = load_scenario_file(file, builtin_registry(),
                                   monday_options(duration, seed, "batch-service", extra));
  ScenarioRun run(sc, builtin_registry());
  run.run();
  auto& m = run.metrics();
  MondayWindow w;
  w.scale = sc.scale;
  w.healthy_threads = m.value(std::string("go.threads_peak") + kWest);
  w.surge_threads = m.value(std::string("go.threads_peak") + kEast);
  // Up-time: from each (re)start of the east process to its next death.
  sim::Time up_since = 0;
  std::vector<double> ups;
  for (const auto& [host, p] : run.phases()) {
    if (host != "east/dataplane/0") continue;
    if (p.what.starts_with("process died")) {
      ups.push_back(sim::to_seconds(p.at - up_since) / 60.0);
    } else if (p.what.starts_with("process restarted")) {
      up_since = p.at;
      w.restarts += 1;
      // "process restarted; N sockets in TIME_WAIT"
      const auto semi = p.what.find("; ");
      if (semi != std::string::npos && std::stol(p.what.substr(semi + 2)) > 0) {
        w.restarts_into_time_wait += 1;
      }
    }
  }
  w.median_uptime_min = median(ups);
  return w;
}

}  // namespace

FigureChecks april_checks(const SelftestOptions& options) {
  const std::string dir =
      options.scenario_dir.empty() ? default_scenario_dir() : options.scenario_dir;
  const std::string file = dir + "/april-2026-outage.yaml";
  // Three hours of the spiral (a quarter with --quick): several OOM kills at the Monday rate.
  const std::string duration = options.quick ? "45m" : "3h";
  std::vector<MondayWindow> runs(kSeeds);
  std::vector<MondayWindow> postmortem_runs(kSeeds);
  std::vector<MondayWindow> shared_runs(kSeeds);
  const std::vector<std::string> as_is;
  std::vector<std::function<void()>> tasks;
  for (int i = 0; i < kSeeds; ++i) {
    for (auto [into, extra] : {std::pair{&runs, &as_is}, std::pair{&postmortem_runs, &kPostMortem},
                               std::pair{&shared_runs, &kGoSharedCores}}) {
      tasks.push_back([into, extra, &file, &duration, i] {
        (*into)[static_cast<std::size_t>(i)] = monday_window(file, duration, 1000 + i, *extra);
      });
    }
  }
  run_tasks(tasks, options.jobs);

  const std::string src = "domain.md §1.4, seeds/april-2026-outage.fr.txt";
  const std::string why = "docs/april-2026.md";
  FigureChecks out;

  // A published figure read as an accepted range of the per-run value.
  auto figure = [&src](std::string claim, std::string expected, double low, double high,
                       std::string unit, std::string note) {
    BandCheck c;
    c.claim = std::move(claim);
    c.source = src;
    c.expected = std::move(expected);
    c.low = low;
    c.high = high;
    c.unit = std::move(unit);
    c.note = std::move(note);
    return c;
  };
  BandCheck healthy = figure("April: a healthy data-plane process has ~150 OS threads",
                             "~150 (accepted 100..200)", 100, 200, "",
                             "(full size: west peak / scale)");
  BandCheck surge = figure(
      "April: Monday threads climb about tenfold (150 -> ~1,500), Go's semantics on Linux EEVDF",
      "x10 (accepted x5..x20)", 5, 20, "x",
      "(east peak / west peak; the default: fd write lock, sysmon parks, EEVDF)");
  BandCheck cadence = figure("April: ~30 minutes up between OOM kills",
                             "~30 min (accepted 15..60)", 15, 60, "min",
                             "(median per run, east; 0 = no kill in the window)");
  cadence.known_departure = why;
  BandCheck postmortem_surge = figure(
      "April, the post-mortem's account (variant postmortem): threads climb about tenfold",
      "x10 (accepted x5..x20)", 5, 20, "x",
      "(east peak / west peak; every blocked log write holds a thread)");
  postmortem_surge.known_departure = why;
  BandCheck go_surge = figure(
      "April, Go's semantics (fd write lock, sysmon parks), cores shared equally: threads climb "
      "about tenfold",
      "x10 (accepted x5..x20)", 5, 20, "x",
      "(east peak / west peak; port searches share the host's cores)");
  go_surge.known_departure = why;
  for (const MondayWindow& w : runs) {
    healthy.per_seed.push_back(w.healthy_threads / w.scale);
    surge.per_seed.push_back(w.surge_threads / std::max(1.0, w.healthy_threads));
    cadence.per_seed.push_back(w.median_uptime_min);
  }
  for (const MondayWindow& w : postmortem_runs) {
    postmortem_surge.per_seed.push_back(w.surge_threads / std::max(1.0, w.healthy_threads));
  }
  for (const MondayWindow& w : shared_runs) {
    go_surge.per_seed.push_back(w.surge_threads / std::max(1.0, w.healthy_threads));
  }
  out.band = {healthy, surge, postmortem_surge, go_surge, cadence};
  // Pooled over the seeds (restarts are few per window): the share of all restarts that found
  // sockets of the dead process still in TIME_WAIT on the fixed source address.
  double restarts = 0, into_time_wait = 0;
  for (const MondayWindow& w : postmortem_runs) {
    restarts += w.restarts;
    into_time_wait += w.restarts_into_time_wait;
  }
  DirectCheck time_wait;
  time_wait.claim =
      "April (variant postmortem): each restart finds its source address's ports in TIME_WAIT";
  time_wait.source = src;
  time_wait.expected = "every restart while TIME_WAIT lasts (accepted >= 90 % of restarts)";
  time_wait.simulated = format_number(into_time_wait, 3) + " of " + format_number(restarts, 3) +
                        " restarts (" + std::to_string(kSeeds) + " runs)";
  time_wait.pass = restarts > 0 && into_time_wait >= 0.9 * restarts;
  out.direct = {time_wait};
  return out;
}

}  // namespace skysim::validation
