#include "fuzz/probes.hpp"

#include <algorithm>

namespace skysim::fuzz {

const std::vector<ProbeSpec>& probe_specs() {
  static const std::vector<ProbeSpec> specs = {
      {"crash injected", "crash knob sampled and host.crashes > 0"},
      {"crash dropped requests", "queue.dropped > 0 (in-service, queued or arriving while down)"},
      {"queue rejected", "queue.rejected > 0 (a bounded queue was full)"},
      {"requests failed", "requests.failed > 0 (a client saw an error)"},
      {"burst", "burst knob sampled (a source rate multiplied for a while)"},
      {"huge batch", "huge-batch knob sampled and its client issued requests"},
      {"param flip", "a settable parameter was lowered mid-run"},
  };
  return specs;
}

double metric_total(const analysis::Json& summary, const std::string& name,
                    const std::string& client) {
  const analysis::Json* metrics = summary.find("metrics");
  if (!metrics || !metrics->is_object()) return 0;
  double total = 0;
  for (const auto& [key, m] : metrics->as_object()) {
    const analysis::Json* n = m.find("name");
    const analysis::Json* v = m.find("value");
    if (!n || !n->is_string() || n->as_string() != name || !v || !v->is_number()) continue;
    if (!client.empty()) {
      const analysis::Json* labels = m.find("labels");
      const analysis::Json* c = labels ? labels->find("client") : nullptr;
      if (!c || !c->is_string() || c->as_string() != client) continue;
    }
    total += v->as_number();
  }
  return total;
}

std::vector<std::string> probes_reached(const Perturbation& p, const analysis::Json& summary) {
  auto sampled = [&](FaultKind k) {
    return std::any_of(p.faults.begin(), p.faults.end(),
                       [k](const Fault& f) { return f.kind == k; });
  };
  std::vector<std::string> out;
  if (sampled(FaultKind::Crash) && metric_total(summary, "host.crashes") > 0) {
    out.push_back("crash injected");
  }
  if (metric_total(summary, "queue.dropped") > 0) out.push_back("crash dropped requests");
  if (metric_total(summary, "queue.rejected") > 0) out.push_back("queue rejected");
  if (metric_total(summary, "requests.failed") > 0) out.push_back("requests failed");
  if (sampled(FaultKind::Burst)) out.push_back("burst");
  if (sampled(FaultKind::HugeBatch) && metric_total(summary, "requests.issued", "fuzz-batch") > 0) {
    out.push_back("huge batch");
  }
  if (sampled(FaultKind::ParamFlip)) out.push_back("param flip");
  return out;
}

}  // namespace skysim::fuzz
