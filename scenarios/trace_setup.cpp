#include "scenarios/trace_setup.hpp"

#include <algorithm>
#include <stdexcept>

namespace skysim::scenarios {
namespace {

// Gauges worth a counter track. Each is a plain read of model state: a probe runs between
// events, so a gauge whose read advances the model (go.gc_cpu_fraction brings the GC's
// accounting up to date) must never be here.
const std::set<std::string, std::less<>>& traced_gauges() {
  static const std::set<std::string, std::less<>> names = {
      "go.threads",         "go.goroutines",       "go.heap_live_bytes", "go.rss_bytes",
      "go.ms_in_syscall",   "go.runnable_threads", "net.time_wait",      "log.writers_waiting",
      "go.up",              "queue.length",        "queue.busy_workers", "requests.in_flight",
  };
  return names;
}

std::string joined(const std::vector<std::string>& v, std::size_t at_most) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < at_most; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > at_most) out += ", ...";
  return out;
}

}  // namespace

const std::vector<std::string>& trace_categories() {
  static const std::vector<std::string> cats = {"rpc", "goroutine", "go",     "syscall",
                                                "gc",  "memcached", "net",    "scylla",
                                                "log", "fanout",    "counter", "sim"};
  return cats;
}

TraceSelection parse_trace_filter(std::string_view text, const std::vector<std::string>& hosts) {
  TraceSelection sel;
  const auto& cats = trace_categories();
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string term(text.substr(pos, comma - pos));
    pos = comma + 1;
    if (term.empty()) {
      throw std::invalid_argument("empty term in '" + std::string(text) +
                                  "' (expected comma-separated categories or host prefixes)");
    }
    if (std::find(cats.begin(), cats.end(), term) != cats.end()) {
      sel.categories.insert(term);
      continue;
    }
    bool matches = false;
    for (const std::string& h : hosts) matches = matches || h.compare(0, term.size(), term) == 0;
    if (!matches) {
      throw std::invalid_argument("'" + term + "' is neither a category (" + joined(cats, 99) +
                                  ") nor the start of a host path (" + joined(hosts, 6) + ")");
    }
    sel.host_prefixes.push_back(term);
  }
  return sel;
}

std::vector<std::string> host_paths(ScenarioRun& run) {
  std::vector<std::string> out;
  for (const auto& [path, instance] : run.world().instances()) out.push_back(path);
  return out;
}

void trace_scenario(ScenarioRun& run, sim::Tracer& tracer) {
  for (const std::string& h : host_paths(run)) tracer.process(h);
  if (!tracer.wants("counter")) return;
  run.metrics().for_each([&](const sim::SeriesView& s) {
    if (traced_gauges().count(s.name) == 0) return;
    std::string process = "clients";
    std::string name = s.name;
    for (const auto& [k, v] : s.labels) {
      if (k == "host") {
        process = v;
      } else if (k != "dc") {
        name += " " + k + "=" + v;  // one counter track per client, endpoint, ...
      }
    }
    std::uint32_t pid = tracer.process(process);
    if (s.gauge_fn != nullptr) {
      const std::function<double()>* fn = s.gauge_fn;
      tracer.add_probe(pid, name, [fn] { return (*fn)(); });
    } else if (s.gauge != nullptr) {
      const sim::Gauge* g = s.gauge;
      tracer.add_probe(pid, name, [g] { return g->value(); });
    }
  });
}

}  // namespace skysim::scenarios
