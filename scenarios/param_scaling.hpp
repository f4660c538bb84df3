#pragma once
// A scenario's `scale` applied to the values a model sees. A scenario always writes full-size
// values; each parameter's ParamSpec::scaling says whether the simulated host gets a share of
// it (Extensive: cores, memory, pools, key spaces), pays more per unit of a shrunken amount
// (Inverse: a port search's time per port, so a search of the shrunken range takes as long as
// one of the whole), or keeps it (None: times, per-object sizes, Go's and the kernel's limits).
//
// The scaling is applied where values cross into a model — a host's context when it is built,
// a timeline's or a fault's `set`, a deploy of a program's step or client — never to the
// scenario's own record of them (ServiceSpec::host_params), which restores and forks read back.
#include <cstdint>
#include <vector>

#include "sim/params.hpp"

namespace skysim::scenarios {

// `v` as the model sees it at `scale`. Integers (counts, sizes, durations) round to the nearest;
// 0 stays 0 (every such parameter's "none" or "off"), and an Extensive amount keeps at least 1
// (a 128-core host at scale 0.005 still has a core). Reals multiply or divide.
sim::ParamValue scaled_value(const sim::ParamSpec& spec, sim::ParamValue v, double scale);

// An Extensive integer amount at `scale`: rounded, at least 1 unless 0 (a port range's length
// uses it too, scenarios/machine.hpp PortRangeSysctl).
std::int64_t scaled_amount(std::int64_t n, double scale);

// Every value of `values` that `specs` declares scaled, at `scale`; the others as they are.
sim::ParamValues scaled_values(const std::vector<sim::ParamSpec>& specs,
                               const sim::ParamValues& values, double scale);

// The rule of one parameter, for `skysim explain` and the scenario reference: "x scale",
// "/ scale", or "" for Scaling::None.
const char* scaling_note(sim::Scaling s);

}  // namespace skysim::scenarios
