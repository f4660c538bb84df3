#pragma once
// The staleness audit's metrics of a composed fan-out instance (a go-service's lossy_filter
// steps, a fanout-fleet), named and labelled as docs/fanout.md's ("The graph
// during a run"): per user class, fanout.stale_decisions and fanout.stale_writes (counters) and
// fanout.mean_factor_error (the mean |cached - true| loss factor over the decisions).
#include <functional>
#include <string>
#include <vector>

#include "models/fanout/follow_growth.hpp"
#include "models/fanout/staleness_audit.hpp"
#include "sim/metrics.hpp"

namespace skysim::scenarios {

// `audits`: the instance's audits now (null entries skipped), summed per class.
inline void add_staleness_metrics(
    sim::MetricsRegistry& m, const std::string& host,
    std::function<std::vector<const fanout::StalenessAudit*>()> audits) {
  const auto sum = [audits](fanout::UserClass c, auto field) {
    double total = 0;
    for (const fanout::StalenessAudit* a : audits()) {
      if (a) total += static_cast<double>(field(a->staleness(c)));
    }
    return total;
  };
  for (std::size_t i = 0; i < fanout::kUserClasses; ++i) {
    const auto c = static_cast<fanout::UserClass>(i);
    const sim::Labels labels = {{"class", std::string(fanout::class_name(c))}, {"host", host}};
    m.counter_fn("fanout.stale_decisions", labels, [sum, c] {
      return sum(c, [](const fanout::StalenessCounts& s) { return s.stale_decisions; });
    });
    m.counter_fn("fanout.stale_writes", labels, [sum, c] {
      return sum(c, [](const fanout::StalenessCounts& s) { return s.stale_kept; });
    });
    m.gauge_fn("fanout.mean_factor_error", labels, [sum, c] {
      const double n = sum(c, [](const fanout::StalenessCounts& s) { return s.decisions; });
      return n > 0 ? sum(c, [](const fanout::StalenessCounts& s) { return s.factor_error; }) / n
                   : 0.0;
    });
  }
}

}  // namespace skysim::scenarios
