#include "fuzz/probes.hpp"

#include <algorithm>

namespace skysim::fuzz {

const std::vector<ProbeSpec>& probe_specs() {
  static const std::vector<ProbeSpec> specs = {
      {"crash injected", "crash knob sampled and host.crashes > 0", "crash", "", "host.crashes"},
      {"crash dropped requests", "queue.dropped > 0 (in-service, queued or arriving while down)",
       "", "queue-server", "queue.dropped"},
      {"queue rejected", "queue.rejected > 0 (a bounded queue was full)", "", "queue-server",
       "queue.rejected"},
      {"requests failed", "requests.failed > 0 (a client saw an error)", "", "", "requests.failed"},
      {"burst", "burst knob sampled (a source rate multiplied for a while)", "burst", ""},
      {"huge batch", "huge-batch knob sampled and its client issued requests", "huge-batch", ""},
      {"param flip", "a settable parameter was lowered mid-run", "flip:", ""},
      {"delay spike", "delay-spike knob sampled and queue.link_delayed > 0", "delay-spike",
       "queue-server", "queue.link_delayed"},
      {"clogged link", "clog knob sampled and queue.link_clog_held > 0", "clog", "queue-server",
       "queue.link_clog_held"},
      {"gc pause", "gc-pause knob sampled and queue.pause_stalled > 0 (service stopped)",
       "gc-pause", "queue-server", "queue.pause_stalled"},
      {"commit unknown", "commit-unknown knob sampled and uid.commit_unknown_results > 0",
       "commit-unknown", "fdb", "uid.commit_unknown_results"},
      {"oom kill", "oom knob sampled and go.oom_kills > 0 (RSS over the lowered limit)", "oom",
       "go-service", "go.oom_kills"},
      {"memcached restart",
       "memcached-restart knob sampled and memcached.restarts > 0 (the server came back empty)",
       "memcached-restart", "memcached", "memcached.restarts"},
      {"go gc pause", "go-gc-pause knob sampled and go.forced_stws > 0 (a stop-the-world ended)",
       "go-gc-pause", "go-service", "go.forced_stws"},
      {"scylla node down",
       "scylla-down knob sampled and scylla.degraded > 0 (ops served by fewer than RF replicas)",
       "scylla-down", "fanout,scylla", "scylla.degraded"},
      {"scylla unavailable",
       "scylla.unavailable > 0 (an op found fewer live replicas than CL and waited)", "scylla-down",
       "fanout,scylla", "scylla.unavailable"},
  };
  return specs;
}

double metric_total(const analysis::Json& summary, const std::string& name,
                    const std::string& client) {
  auto metrics = summary.find("metrics");
  if (!metrics || !metrics->is_object()) return 0;
  double total = 0;
  for (const auto& [key, m] : metrics->as_object()) {
    auto n = m.find("name");
    auto v = m.find("value");
    if (!n || !n->is_string() || n->as_string() != name || !v || !v->is_number()) continue;
    if (!client.empty()) {
      auto labels = m.find("labels");
      auto c = labels ? labels->find("client") : std::nullopt;
      if (!c || !c->is_string() || c->as_string() != client) continue;
    }
    total += v->as_number();
  }
  return total;
}

bool caused_by_faults(const ProbeSpec& spec, const analysis::Json& run,
                      const analysis::Json& baseline) {
  if (spec.metric.empty()) return true;
  return metric_total(run, spec.metric) > metric_total(baseline, spec.metric);
}

bool probe_applies(const ProbeSpec& spec, const Perturbation& p) {
  const std::string listed = "," + spec.kind + ",";
  auto named = [&listed](const std::string& kind) {
    return listed.find("," + kind + ",") != std::string::npos;
  };
  if (!spec.kind.empty() && std::none_of(p.kinds.begin(), p.kinds.end(), named)) return false;
  if (spec.knob.empty()) return true;
  return std::any_of(p.swarm.begin(), p.swarm.end(), [&](const std::string& s) {
    if (spec.knob.back() == ':') return s.rfind(spec.knob, 0) == 0;
    return s == spec.knob + "=on" || s == spec.knob + "=off";
  });
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
  if (sampled(FaultKind::DelaySpike) && metric_total(summary, "queue.link_delayed") > 0) {
    out.push_back("delay spike");
  }
  if (sampled(FaultKind::Clog) && metric_total(summary, "queue.link_clog_held") > 0) {
    out.push_back("clogged link");
  }
  if (sampled(FaultKind::GcPause) && metric_total(summary, "queue.pause_stalled") > 0) {
    out.push_back("gc pause");
  }
  if (sampled(FaultKind::CommitUnknown) &&
      metric_total(summary, "uid.commit_unknown_results") > 0) {
    out.push_back("commit unknown");
  }
  if (sampled(FaultKind::OomKill) && metric_total(summary, "go.oom_kills") > 0) {
    out.push_back("oom kill");
  }
  if (sampled(FaultKind::MemcachedRestart) && metric_total(summary, "memcached.restarts") > 0) {
    out.push_back("memcached restart");
  }
  if (sampled(FaultKind::GoGcPause) && metric_total(summary, "go.forced_stws") > 0) {
    out.push_back("go gc pause");
  }
  if (sampled(FaultKind::ScyllaDown) && metric_total(summary, "scylla.degraded") > 0) {
    out.push_back("scylla node down");
  }
  if (metric_total(summary, "scylla.unavailable") > 0) out.push_back("scylla unavailable");
  return out;
}

}  // namespace skysim::fuzz
