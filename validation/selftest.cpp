#include "validation/selftest.hpp"

#include "validation/kernel_checks.hpp"
#include "validation/published_checks.hpp"
#include "validation/queue_server_run.hpp"

namespace skysim::validation {

SelftestReport run_selftest(const SelftestOptions& options) {
  QueueingChecks q = run_queueing_checks(options);
  PublishedChecks published = published_checks(options);

  constexpr int kRngLines = 2;
  SelftestReport report;
  // Band lines are not counted: they pass only when the whole 95 % interval is inside a range,
  // so the family-wise correction (which widens intervals) would make them easier, not safer.
  report.statistical_lines = static_cast<int>(q.checks.size() + published.replicated.size()) +
                             kRngLines + 1;
  for (const auto& p : published.direct) report.statistical_lines += p.statistical ? 1 : 0;
  report.verdict_confidence = bonferroni_confidence(report.statistical_lines);
  const double alpha = 1 - report.verdict_confidence;

  for (const auto& c : q.checks) report.rows.push_back(judge(c, report.verdict_confidence));
  std::vector<const ReplicatedCheck*> primary;
  for (std::size_t i : q.primary) primary.push_back(&q.checks[i]);
  // Every published figure with an analytic value was also run at a quarter of the length.
  for (const auto& p : published.replicated) {
    if (!p.per_seed_short.empty()) primary.push_back(&p);
  }
  report.rows.push_back(judge_shrinkage(primary, report.verdict_confidence));

  DirectCheck fifo;
  fifo.claim = "Semaphore grants in arrival order (" + std::to_string(q.kernel_runs) + " runs)";
  fifo.source = "sim/sync.hpp (strict FIFO)";
  fifo.expected = "0 out of order";
  fifo.simulated = std::to_string(q.fifo_violations) + " out of order";
  fifo.pass = q.fifo_violations == 0;
  report.rows.push_back(judge(fifo));
  DirectCheck invariants;
  invariants.claim = "queue-server invariants hold in every validation run";
  invariants.source = "scenarios/validation-*.yaml";
  invariants.expected = "all hold";
  invariants.simulated = q.scenario_invariants_hold ? "all hold" : "VIOLATED";
  invariants.pass = q.scenario_invariants_hold;
  report.rows.push_back(judge(invariants));

  const std::string dir =
      options.scenario_dir.empty() ? default_scenario_dir() : options.scenario_dir;
  const long draws = options.quick ? 200'000 : 1'000'000;
  report.rows.push_back(judge(check_equal_time_order()));
  report.rows.push_back(judge(check_uniform_int(1, draws, alpha)));
  report.rows.push_back(judge(check_exponential(1, draws / 4, alpha)));
  report.rows.push_back(judge(check_determinism(dir + "/validation-mm1.yaml")));
  for (const auto& p : published.replicated) {
    report.rows.push_back(judge(p, report.verdict_confidence));
  }
  for (const auto& p : published.band) report.rows.push_back(judge(p));
  for (const auto& p : published.direct) report.rows.push_back(judge(p));
  return report;
}

}  // namespace skysim::validation
