// skysim bench phold: the kernel's speed on the standard PHOLD load, next to a bare loop over
// std::priority_queue measured in the same run (docs/benchmarks.md records the figures).
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "bench/phold.hpp"
#include "sim/time.hpp"

namespace skysim::app {
namespace {

struct PholdOptions {
  bench::PholdConfig cfg;
  std::string until = "1343";
  std::string path = "both";
  bool baseline = false;
  int repeat = 1;
};

// A bare number is simulated seconds (PHOLD's time unit); "90s", "20m" etc. are also accepted.
double parse_until_seconds(const std::string& text) {
  std::size_t used = 0;
  double seconds = 0;
  try {
    seconds = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == text.size() && used > 0) return seconds;
  try {
    return sim::to_seconds(sim::parse_duration(text));
  } catch (const std::exception& e) {
    throw UsageError("bench phold: --until '" + text +
                     "' is neither a number of simulated seconds nor a duration: " + e.what());
  }
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

// Runs one path `repeat` times and reports the median wall and the median CPU time. Every
// repeat must give the same fingerprint and count: a difference is a determinism bug, not noise.
bench::PholdResult run_median(const bench::PholdConfig& cfg, bench::PholdPath path, int repeat) {
  std::vector<bench::PholdResult> runs;
  std::vector<double> wall;
  std::vector<double> cpu;
  for (int i = 0; i < repeat; ++i) {
    runs.push_back(bench::run_phold(cfg, path));
    if (runs.back().fingerprint != runs.front().fingerprint ||
        runs.back().events != runs.front().events) {
      throw std::runtime_error("bench phold: repeat " + std::to_string(i + 1) + " of the " +
                               bench::to_string(path) + " path diverged from the first run");
    }
    wall.push_back(runs.back().wall_s);
    cpu.push_back(runs.back().cpu_s);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  bench::PholdResult median = runs.front();
  median.wall_s = wall[wall.size() / 2];
  median.cpu_s = cpu[cpu.size() / 2];
  return median;
}

void print_result(const bench::PholdConfig& cfg, const bench::PholdResult& r, int repeat,
                  const bench::PholdResult* baseline) {
  const double expected = bench::phold_expected_events(cfg);
  const double rel = (static_cast<double>(r.events) - expected) / expected;
  std::printf("[%s]\n", bench::to_string(r.path).c_str());
  std::printf("  events processed   %llu (kernel events %llu)\n",
              static_cast<unsigned long long>(r.events),
              static_cast<unsigned long long>(r.kernel_events));
  std::printf("  expected N*E*T/1.1 %.0f (relative difference %+.3f%%)\n", expected, 100 * rel);
  std::printf("  wall seconds       %.3f (median of %d; CPU seconds %.3f)\n", r.wall_s, repeat,
              r.cpu_s);
  std::printf("  events/s           %.3f M (per CPU second %.3f M)\n", r.events_per_s() / 1e6,
              r.events_per_cpu_s() / 1e6);
  if (r.path != bench::PholdPath::kBaseline) {
    std::printf("  fingerprint        %016llx\n", static_cast<unsigned long long>(r.fingerprint));
  }
  if (baseline != nullptr && r.path != bench::PholdPath::kBaseline && baseline->wall_s > 0) {
    std::printf("  vs bare loop       %.2fx its wall time, %.2fx its CPU time\n",
                r.wall_s / baseline->wall_s, r.cpu_s / baseline->cpu_s);
  }
}

void run_phold_command(const PholdOptions& opt) {
  bench::PholdConfig cfg = opt.cfg;
  cfg.until_s = parse_until_seconds(opt.until);
  try {
    bench::validate(cfg);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("bench phold: ") + e.what());
  }
  std::vector<bench::PholdPath> paths;
  if (opt.path == "both") {
    paths = {bench::PholdPath::kCallback, bench::PholdPath::kProcess};
  } else {
    try {
      paths = {bench::parse_phold_path(opt.path)};
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("bench phold: --path: ") + e.what());
    }
  }
  const bool with_baseline = (opt.baseline || opt.path == "both") &&
                             paths.front() != bench::PholdPath::kBaseline;
  std::printf("PHOLD lps=%u init=%u until=%g seed=%llu repeat=%d\n", cfg.lps, cfg.init_events,
              cfg.until_s, static_cast<unsigned long long>(cfg.seed), opt.repeat);
  std::vector<bench::PholdResult> results;
  for (bench::PholdPath p : paths) results.push_back(run_median(cfg, p, opt.repeat));
  std::unique_ptr<bench::PholdResult> baseline;
  if (with_baseline) {
    baseline = std::make_unique<bench::PholdResult>(
        run_median(cfg, bench::PholdPath::kBaseline, opt.repeat));
  }
  for (const auto& r : results) print_result(cfg, r, opt.repeat, baseline.get());
  if (baseline) print_result(cfg, *baseline, opt.repeat, nullptr);
  std::printf("peak RSS             %.1f MiB (whole process, every path above)\n",
              peak_rss_mib());
}

}  // namespace

void register_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Kernel benchmarks");
  cmd->require_subcommand(1);
  auto* phold = cmd->add_subcommand(
      "phold", "PHOLD: N LPs, E events each; each event sends one to a uniform LP at +0.1+Exp(1)");
  auto opt = std::make_shared<PholdOptions>();
  phold->add_option("--lps", opt->cfg.lps, "Number of logical processes N")
      ->capture_default_str();
  phold->add_option("--init", opt->cfg.init_events, "Initial events per LP E")
      ->capture_default_str();
  phold->add_option("--until", opt->until,
                    "Horizon T in simulated seconds (or a duration such as 20m)")
      ->capture_default_str();
  phold->add_option("--seed", opt->cfg.seed, "Root seed")->capture_default_str();
  phold->add_option("--path", opt->path, "callback, process, baseline, or both (callback and "
                                         "process, plus the bare-loop baseline)")
      ->capture_default_str();
  phold->add_flag("--baseline", opt->baseline,
                  "Also run the bare std::priority_queue loop and report the ratio to it");
  phold->add_option("--repeat", opt->repeat, "Runs per path; the median wall time is reported")
      ->capture_default_str()
      ->check(CLI::Range(1, 101));
  phold->callback([opt] { run_phold_command(*opt); });
}

}  // namespace skysim::app
