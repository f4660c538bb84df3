#pragma once
// The fault kinds a scenario's `faults:` list can name besides `crash`, and the settable
// parameter each one drives for its window: `at` sets it (to `strength`, or to "true" for the
// on/off kinds), `at + duration` sets it back to the host's own value. The fuzzer draws its
// window faults from this same list (fuzz/perturbation.cpp), so every fault world it builds is
// a `faults:` list a user could have written.
#include <string>
#include <string_view>
#include <vector>

namespace skysim::scenarios {

struct FaultKindSpec {
  std::string type;      // as written after `type:` ("delay-spike")
  std::string param;     // the settable parameter it drives ("link_delay")
  bool switch_on;        // true: set to "true" (no strength); false: set to `strength`
  bool service_wide;     // a service's shared state (params.X), not one host's
  std::string strength;  // what `strength` is, for errors and docs ("the link delay")
  std::string doc;       // one line
};

// In documentation order.
const std::vector<FaultKindSpec>& fault_kinds();
const FaultKindSpec* find_fault_kind(std::string_view type);
// "crash, delay-spike, ...": every type `faults:` accepts.
std::string fault_type_names();

}  // namespace skysim::scenarios
