#include "app/run_until.hpp"

#include "app/commands.hpp"
#include "scenarios/units.hpp"

namespace skysim::app {

sim::Time parse_until(const scenarios::Scenario& scenario, const std::string& text) {
  std::int64_t t = 0;
  try {
    t = scenarios::parse_date_or_offset(text, scenario.epoch_unix_ns);
  } catch (const scenarios::UnitError& e) {
    throw UsageError("--until: " + std::string(e.what()) + " (expected " + e.expected() + ")");
  }
  if (t < scenario.epoch_unix_ns || t - scenario.epoch_unix_ns > scenario.duration) {
    throw UsageError("--until " + text + " is outside the run, which spans " +
                     sim::format_iso8601(scenario.epoch_unix_ns) + " .. " +
                     sim::format_iso8601(scenario.epoch_unix_ns + scenario.duration) + " (" +
                     sim::format_duration(scenario.duration) + ")");
  }
  return t - scenario.epoch_unix_ns;
}

}  // namespace skysim::app
