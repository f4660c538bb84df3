#include "models/net/dialer.hpp"

#include <stdexcept>

namespace skysim::net {

std::string FixedSourceDialer::describe() const {
  return "fixed source " + ip_.str() + (no_port_ ? " (IP_BIND_ADDRESS_NO_PORT)" : " (bind first)");
}

void LoopbackSpread::validate() const {
  if (second_octets < 1 || second_octets > 254 || third_octets < 1 || third_octets > 256 ||
      fourth_octets < 1 || fourth_octets > 254) {
    throw std::invalid_argument(
        "random loopback dialer: octet counts must be 1..254, 1..256, "
        "1..254; got " +
        std::to_string(second_octets) + ", " + std::to_string(third_octets) + ", " +
        std::to_string(fourth_octets));
  }
}

RandomLoopbackDialer::RandomLoopbackDialer(sim::Rng& rng, LoopbackSpread spread)
    : rng_(rng), spread_(spread) {
  spread_.validate();
}

Ipv4 RandomLoopbackDialer::pick_source() {
  auto draw = [&](std::uint32_t n) {
    return static_cast<std::uint32_t>(rng_.uniform_int(0, std::int64_t{n} - 1));
  };
  std::uint32_t b = 1 + draw(spread_.second_octets);
  std::uint32_t c = draw(spread_.third_octets);
  std::uint32_t d = 1 + draw(spread_.fourth_octets);
  return Ipv4{(127u << 24) | (b << 16) | (c << 8) | d};
}

DialOutcome RandomLoopbackDialer::dial(NetNamespace& ns, Endpoint remote, OwnerId owner) {
  return ns.bind_connect(pick_source(), remote, owner, false);
}

std::string RandomLoopbackDialer::describe() const {
  return "random loopback source (" + std::to_string(spread_.addresses()) + " IPs)";
}

}  // namespace skysim::net
