#include "app/metastability_triggers.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace skysim::app {

namespace {

double seconds(sim::Time t) { return static_cast<double>(t) / 1e9; }

}  // namespace

std::vector<analysis::Trigger> scenario_triggers(const scenarios::Scenario& s) {
  std::vector<analysis::Trigger> out;
  std::map<std::string, sim::Time> crashed_at;  // host -> time of its pending crash
  for (const auto& src : s.sources) {
    if (src.enabled && src.stop < s.duration && src.stop > src.start) {
      out.push_back({"source " + src.name + " stops", seconds(src.start), seconds(src.stop), 0});
    }
  }
  for (const auto& entry : s.timeline) {
    for (const auto& a : entry.actions) {
      if (a.type == scenarios::ActionType::Crash) {
        crashed_at.emplace(a.target, entry.at);
      } else if (a.type == scenarios::ActionType::Restart) {
        auto it = crashed_at.find(a.target);
        if (it != crashed_at.end()) {
          out.push_back(
              {"crash of " + a.target + " heals", seconds(it->second), seconds(entry.at), 0});
          crashed_at.erase(it);
        }
      } else if (a.type == scenarios::ActionType::StopSource) {
        for (const auto& src : s.sources) {
          if (src.name == a.target && src.start < entry.at) {
            out.push_back(
                {"timeline stops source " + src.name, seconds(src.start), seconds(entry.at), 0});
          }
        }
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
  // Every deliberate change of the scenario: the band is measured after the last one before a
  // trigger, and recovery is judged only until the next one after it (a capacity bump or a
  // traffic change moves the steady state, so the old band no longer says "normal").
  std::vector<double> changes;
  for (const auto& src : s.sources) {
    if (src.enabled && src.start > 0) {
      changes.push_back(seconds(src.start));
    }
    if (src.enabled && src.stop < s.duration) {
      changes.push_back(seconds(src.stop));
    }
  }
  for (const auto& entry : s.timeline) {
    changes.push_back(seconds(entry.at));
  }
  for (auto& t : out) {
    t.horizon_s = seconds(s.duration);
    t.baseline_from_s = 0;
    for (double c : changes) {
      if (c > t.end_s && c < t.horizon_s) {
        t.horizon_s = c;
      }
      if (c < t.start_s && c > t.baseline_from_s) {
        t.baseline_from_s = c;
      }
    }
  }
  return out;
}

analysis::Trigger explicit_trigger(const scenarios::Scenario& s, sim::Time end,
                                   std::optional<sim::Time> start) {
  if (!start) {
    for (const auto& src : s.sources) {
      if (src.enabled && src.start > 0 && src.start < end && (!start || src.start > *start)) {
        start = src.start;
      }
    }
    if (!start) {
      throw std::invalid_argument(
          "--trigger-end without --trigger-start: no source of " + s.name +
          " starts during the run, so the start of the trigger is unknown; pass --trigger-start");
    }
  }
  return {"--trigger-end", seconds(*start), seconds(end), seconds(s.duration), -1};
}

}  // namespace skysim::app
