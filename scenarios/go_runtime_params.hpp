#pragma once
// The Go runtime's and its host kernel's scheduling parameters, declared once for every kind
// that runs a Go process (`dataplane`, `go-service`): the same names, docs, defaults and
// ranges in both, so a composition states the replay's runtime in the replay's words.
// None of them scales with `scale`; the kinds' own capacities (cores, limits) are theirs.
#include <string>
#include <string_view>
#include <vector>

#include "models/goruntime/config.hpp"
#include "sim/params.hpp"

namespace skysim::scenarios {

// `stack_used_default`: the kind's goroutine_stack_used default (what its goroutines hold).
std::vector<sim::ParamSpec> go_runtime_params(std::string_view stack_used_default);

// Sets every GoConfig field go_runtime_params() declares. port_scan_cost is the kernel's,
// read by each kind for its own clients (port_scan_cost() below).
void apply_go_runtime_params(const sim::ParamValues& v, goruntime::GoConfig& g);
sim::Duration port_scan_cost(const sim::ParamValues& v);

}  // namespace skysim::scenarios
