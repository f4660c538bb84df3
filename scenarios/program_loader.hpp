#pragma once
// Reads a service's `program:` (scenarios/program.hpp) and checks how programs wire together
// once every service is known: each client names a service that exists, each call an endpoint
// its target serves, and no chain of calls comes back to a handler it started from (a Go
// service calling itself through the network would never finish a request).
#include <map>
#include <memory>
#include <string>

#include "scenarios/model_registry.hpp"
#include "scenarios/program.hpp"
#include "scenarios/yaml_checker.hpp"

namespace skysim::scenarios {

// nullptr when the program is too broken to use (the diagnostics say why).
std::shared_ptr<Program> read_program(yamlcheck::Checker& c, const YAML::Node& n,
                                      const std::string& path);

// What the wiring check needs to know of one declared service.
struct ServiceEntry {
  const ServiceKind* kind = nullptr;
  std::shared_ptr<Program> program;  // null unless the kind runs one
  int hosts = 1;
};

// Resolves every client's target (writing it into the program) and checks calls and cycles.
// `services` is keyed "dc.service"; `datacenters` in file order.
void check_program_wiring(yamlcheck::Checker& c, std::map<std::string, ServiceEntry>& services,
                          const std::vector<std::string>& datacenters);

// The endpoints a declared service serves: its program's handlers, else its kind's.
std::vector<std::string> endpoints_of(const ServiceEntry& e);

}  // namespace skysim::scenarios
