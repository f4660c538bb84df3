#pragma once
// Liveness / recovery mode (TigerBeetle's VOPR has one; issue 25 item 2): once the last fault
// of a world has ended, the system must be back in its healthy band within a stated time, or
// the run is reported metastable with the metastability report (analysis/metastability.hpp)
// attached. The healthy band is the pre-fault band of the answered and failed request rates;
// the faults themselves are the trigger.
#include <optional>
#include <string>

#include "fuzz/perturbation.hpp"

namespace skysim::fuzz {

// The metrics whose pre-fault band is "healthy" (substrings of timeseries.csv columns).
inline const std::vector<std::string>& liveness_metrics() {
  static const std::vector<std::string> m = {"requests.ok", "requests.failed"};
  return m;
}

// A world fit for the liveness check: permanent parameter flips dropped (they change what
// healthy means, they do not end), and the run long enough to watch `recovery` after the last
// fault ends plus `tail` more (the rows the band needs to count a return).
Perturbation for_liveness(Perturbation p, sim::Duration recovery, sim::Duration tail);

// The rows after the horizon for_liveness leaves: the band counts a return after 3 rows in it.
sim::Duration liveness_tail(const scenarios::Scenario& base);

// The end of the world's last fault (0 when it has none), an offset from the epoch.
sim::Duration last_fault_end(const Perturbation& p);

struct LivenessVerdict {
  bool judged = false;      // false: no faults, or no rows before the first fault
  bool metastable = false;  // a healthy metric still out of band `recovery` after the end
  std::string summary;      // one line: which metrics, or why not judged
  std::string report_path;  // the metastability report written into the run's directory
};

// Metastable: a metric left its band and has not started `hold` rows back in it by the last
// fault's end + `recovery` (analysis/metastability.hpp; the report is evaluated to the run's
// end, so a late return is shown with its time). Reads the run's out/timeseries.csv and out/summary.json in `run_dir`; writes
// `run_dir/metastability.txt` and `.json` when judged.
LivenessVerdict judge_liveness(const std::string& run_dir, const Perturbation& p,
                               sim::Duration recovery);

}  // namespace skysim::fuzz
