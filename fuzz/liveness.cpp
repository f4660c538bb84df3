#include "fuzz/liveness.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/json.hpp"
#include "analysis/metastability.hpp"

namespace skysim::fuzz {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

sim::Duration last_fault_end(const Perturbation& p) {
  sim::Duration end = 0;
  for (const auto& f : p.faults) end = std::max(end, f.at + f.length);
  return end;
}

sim::Duration liveness_tail(const scenarios::Scenario& base) {
  return 4 * std::max<sim::Duration>(base.metrics_interval, sim::kSecond);
}

Perturbation for_liveness(Perturbation p, sim::Duration recovery, sim::Duration tail) {
  std::erase_if(p.faults, [](const Fault& f) { return f.kind == FaultKind::ParamFlip; });
  std::erase_if(p.swarm, [](const std::string& s) { return s.rfind("flip:", 0) == 0; });
  if (!p.faults.empty()) p.duration = std::max(p.duration, last_fault_end(p) + recovery + tail);
  return p;
}

LivenessVerdict judge_liveness(const std::string& run_dir, const Perturbation& p,
                               sim::Duration recovery) {
  LivenessVerdict v;
  if (p.faults.empty()) {
    v.summary = "no fault";
    return v;
  }
  std::string csv = run_dir + "/out/timeseries.csv", json = run_dir + "/out/summary.json";
  if (!std::filesystem::exists(csv) || !std::filesystem::exists(json)) {
    v.summary = "no time series";
    return v;
  }
  auto table = analysis::TimeSeriesTable::parse_csv(read_file(csv), csv);
  table.counters_to_rates(analysis::counter_columns(analysis::Json::parse(read_file(json))));
  analysis::Trigger t;
  t.what = "the fuzz faults";
  sim::Duration first = p.faults.front().at;
  for (const auto& f : p.faults) first = std::min(first, f.at);
  t.start_s = sim::to_seconds(first);
  t.end_s = sim::to_seconds(last_fault_end(p));
  // The series runs a tail past end + recovery (for_liveness): a return that starts by then
  // may complete its `hold` rows after it. Later returns are too late (checked below).
  const double deadline_s = sim::to_seconds(last_fault_end(p) + recovery);
  t.horizon_s = sim::to_seconds(p.duration);
  analysis::MetastabilityOptions o;
  o.metrics = liveness_metrics();
  analysis::MetastabilityReport rep;
  try {
    rep = analysis::analyse_metastability(table, t, o);
  } catch (const std::invalid_argument& e) {
    v.summary = std::string("not judged: ") + e.what();
    return v;
  }
  std::string degraded;
  int baselines = 0;
  for (const auto& m : rep.metrics) {
    if (m.status != analysis::Recovery::kNoBaseline) ++baselines;
    bool late = m.status == analysis::Recovery::kRecovered && m.returned_at_s &&
                *m.returned_at_s > deadline_s + 1e-9;
    if (m.status == analysis::Recovery::kStayedDegraded || late) {
      degraded += (degraded.empty() ? "" : ", ") + m.column;
    }
  }
  if (baselines == 0) {
    v.summary = "not judged: no rows before the first fault";
    return v;
  }
  v.judged = true;
  v.metastable = !degraded.empty();
  v.report_path = run_dir + "/metastability.txt";
  std::ofstream(v.report_path) << rep.format();
  std::ofstream(run_dir + "/metastability.json") << rep.to_json().dump() << "\n";
  v.summary = v.metastable ? "still out of the healthy band " + sim::format_duration(recovery) +
                                 " after the last fault ended: " + degraded
                           : "back in the healthy band";
  return v;
}

}  // namespace skysim::fuzz
