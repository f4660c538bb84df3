#include "app/report_inputs.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "scenarios/loader.hpp"
#include "scenarios/param_scaling.hpp"
#include "scenarios/units.hpp"
#include "sim/time.hpp"

namespace skysim::app {

namespace fs = std::filesystem;

namespace {

std::string one_line(std::string s) {
  for (auto& c : s) c = c == '\n' ? ' ' : c;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// A timeline entry without a note is named by what it sets.
std::string entry_text(const YAML::Node& e) {
  if (e["note"] && e["note"].IsScalar()) return one_line(e["note"].as<std::string>());
  std::string text;
  if (e["set"] && e["set"].IsMap()) {
    for (const auto& kv : e["set"]) {
      text += (text.empty() ? "set " : ", ") + kv.first.as<std::string>() + "=" +
              (kv.second.IsScalar() ? kv.second.as<std::string>() : std::string("..."));
    }
  }
  return text.empty() ? "timeline entry" : text;
}

// The timeline's entries and the faults (a fault with a duration also where it heals), by time.
std::vector<analysis::ChartMarker> changes(const scenarios::Scenario& s) {
  std::vector<analysis::ChartMarker> out;
  auto seconds = [&s](const YAML::Node& at) {
    auto t = scenarios::parse_date_or_offset(at.as<std::string>(), s.epoch_unix_ns);
    return static_cast<double>(t - s.epoch_unix_ns) / 1e9;
  };
  const YAML::Node timeline = s.document["timeline"];
  for (std::size_t i = 0; timeline && timeline.IsSequence() && i < timeline.size(); ++i) {
    if (timeline[i]["at"]) out.push_back({seconds(timeline[i]["at"]), "", entry_text(timeline[i])});
  }
  const YAML::Node faults = s.document["faults"];
  for (std::size_t i = 0; faults && faults.IsSequence() && i < faults.size(); ++i) {
    const YAML::Node f = faults[i];
    if (!f["at"] || !f["type"] || !f["target"]) continue;
    std::string what = f["type"].as<std::string>() + " " + f["target"].as<std::string>();
    double at = seconds(f["at"]);
    if (!f["duration"]) {
      out.push_back({at, "", "fault: " + what});
      continue;
    }
    std::string d = f["duration"].as<std::string>();
    out.push_back({at, "", "fault: " + what + " for " + d});
    out.push_back({at + static_cast<double>(scenarios::parse_duration(d)) / 1e9, "",
                   "healed: " + what + " after " + d});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.time_s < b.time_s; });
  return out;
}

std::vector<analysis::RunReportInputs::KindPanels> kind_panels(
    const scenarios::Scenario& s, const scenarios::Registry& registry) {
  std::vector<std::string> order;  // kinds in the order the scenario first uses them
  std::map<std::string, std::vector<scenarios::HostContext>> hosts;
  for (const auto& dc : s.datacenters) {
    for (const auto& svc : dc.services) {
      if (hosts.find(svc.kind) == hosts.end()) order.push_back(svc.kind);
      auto& list = hosts[svc.kind];
      const scenarios::ServiceKind* kind = registry.find(svc.kind);
      for (int i = 0; i < svc.hosts; ++i) {
        list.push_back({dc.name, svc.name, svc.kind, i, svc.hosts, s.scale,
                        kind ? scenarios::scaled_values(
                                   kind->params, svc.host_params[static_cast<std::size_t>(i)],
                                   s.scale)
                             : svc.host_params[static_cast<std::size_t>(i)],
                        nullptr,
                        svc.machine.empty() ? std::string()
                                            : scenarios::machine_path(dc.name, svc.machine, i)});
      }
    }
  }
  std::vector<analysis::RunReportInputs::KindPanels> out;
  for (const auto& k : order) {
    const scenarios::ServiceKind* kind = registry.find(k);
    if (kind && kind->report_panels) out.push_back({k, kind->report_panels(hosts[k])});
  }
  return out;
}

}  // namespace

analysis::RunReportInputs run_report_inputs(const fs::path& dir, const analysis::Json& summary,
                                            const scenarios::Registry& registry) {
  analysis::RunReportInputs in;
  std::optional<std::int64_t> epoch_ns;
  fs::path resolved = dir / "scenario.resolved.yaml";
  if (fs::exists(resolved)) {
    scenarios::Scenario s;
    try {
      s = scenarios::load_scenario_file(resolved.string(), registry);
    } catch (const std::exception& e) {
      throw std::invalid_argument("report: " + resolved.string() + ": " + e.what());
    }
    epoch_ns = s.epoch_unix_ns;
    in.kinds = kind_panels(s, registry);
    in.changes = changes(s);
  } else if (std::optional<analysis::Json> e = summary.find("epoch"); e && e->is_string()) {
    epoch_ns = sim::parse_iso8601_unix_ns(e->as_string());
  }
  if (!epoch_ns) return in;
  in.epoch_unix_s = static_cast<double>(*epoch_ns) / 1e9;
  std::optional<analysis::Json> phases = summary.find("phases");
  if (!phases || !phases->is_array()) return in;
  for (const auto& p : phases->as_array()) {
    std::optional<analysis::Json> at = p.find("at");
    std::optional<analysis::Json> what = p.find("what");
    if (!at || !what || !at->is_string() || !what->is_string()) {
      throw std::invalid_argument("report: " + (dir / "summary.json").string() +
                                  ": a phase without a date `at` and a text `what`");
    }
    std::optional<analysis::Json> host = p.find("host");
    double t = static_cast<double>(sim::parse_iso8601_unix_ns(at->as_string()) - *epoch_ns) / 1e9;
    in.phases.push_back({t, host && host->is_string() ? host->as_string() : "",
                         what->as_string()});
  }
  return in;
}

}  // namespace skysim::app
