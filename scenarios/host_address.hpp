#pragma once
// A host's network address in a scenario: 10.x.y.z by its number (World::host_number), distinct
// and the same in every run. assumption: one flat network; only distinctness matters to the
// TCP rules (connect(2)'s 4-tuple space is per destination address and port).
#include <string>

#include "models/net/address.hpp"
#include "scenarios/model_registry.hpp"

namespace skysim::scenarios {

inline net::Ipv4 host_address(World& w, const std::string& path) {
  const std::uint32_t n = w.host_number(path);
  return net::Ipv4::of(10, static_cast<std::uint8_t>(n >> 16), static_cast<std::uint8_t>(n >> 8),
                       static_cast<std::uint8_t>(n));
}

}  // namespace skysim::scenarios
