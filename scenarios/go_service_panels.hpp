#pragma once
// The on-call view of a go-service (`skysim report`): the series an outage of a Go service
// shows first, each against the limit it runs into — OS threads against Go's thread limit,
// TIME_WAIT against the ephemeral port range, RSS against GOMEMLIMIT and the container limit —
// and what the users saw. Limits are the hosts' configuration at the start of the run, scaled
// as the hosts were (a timeline change of them is not drawn).
#include <functional>
#include <string>
#include <vector>

#include "scenarios/model_registry.hpp"
#include "sim/report_panel.hpp"

namespace skysim::scenarios {

std::vector<sim::ReportPanel> go_service_panels(const std::vector<HostContext>& hosts);

// A limit line per distinct `value` among the hosts (labelled with the first host that has it
// when they differ); a value <= 0 is no limit configured, no line. Kinds share it.
std::vector<sim::PanelLimit> panel_limits(const std::vector<HostContext>& hosts,
                                          const std::string& what,
                                          const std::function<double(const HostContext&)>& value);

}  // namespace skysim::scenarios
