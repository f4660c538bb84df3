#pragma once
// A panel of `skysim report`: which series of a run an on-call engineer looks at first, and
// how to draw them. A service kind declares its panels beside its parameters (the model
// registry); the report (analysis/) reads them as plain data. Header-only, so analysis/ needs no
// link dependency on the kernel to use it.
#include <string>
#include <vector>

namespace sim {

enum class PanelHow {
  kLevel,  // the value as sampled (a gauge, or a cumulative count shown as such)
  kRate,   // per second: the difference of consecutive rows over the interval
  // 100·Δfirst / (Δfirst + Δsecond) per interval: the first series' share of two counters with
  // the same labels (good and bad requests → success in %)
  kSharePercent,
};

// A constant line on a panel: a limit the series runs into (the port range, GOMEMLIMIT).
struct PanelLimit {
  std::string label;
  double value = 0;  // in the series' unit, before `divide_by`
};

struct ReportPanel {
  std::string title;
  // Metric names as in timeseries.csv without the labels ("go.threads", a histogram field as
  // "queue.wait_ns:p99"); every label set of each is one line.
  std::vector<std::string> series;
  std::string unit;  // of the y axis, after divide_by
  PanelHow how = PanelHow::kLevel;
  double divide_by = 1;  // 1048576: bytes → MiB
  bool log_y = false;
  std::vector<PanelLimit> limits = {};
};

}  // namespace sim
