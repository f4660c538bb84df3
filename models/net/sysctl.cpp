#include "models/net/sysctl.hpp"

#include <stdexcept>
#include <string>

namespace skysim::net {

void NetSysctl::validate() const {
  if (port_lo == 0 || port_lo > port_hi) {
    throw std::invalid_argument("net: ip_local_port_range " + std::to_string(port_lo) + " " +
                                std::to_string(port_hi) + " is empty or starts at 0");
  }
  if (time_wait < 0) {
    throw std::invalid_argument("net: time_wait must not be negative");
  }
  if (tw_reuse < 0 || tw_reuse > 2) {
    throw std::invalid_argument("net: tcp_tw_reuse must be 0, 1 or 2, got " +
                                std::to_string(tw_reuse));
  }
  if (tw_reuse_delay < 0) {
    throw std::invalid_argument("net: tcp_tw_reuse_delay must not be negative");
  }
  if (host_ip.is_loopback()) {
    throw std::invalid_argument("net: host_ip " + host_ip.str() + " must not be loopback");
  }
}

}  // namespace skysim::net
