#include "models/net/address.hpp"

#include <charconv>
#include <stdexcept>

namespace skysim::net {
namespace {

std::uint32_t parse_number(std::string_view part, std::uint32_t max, std::string_view whole,
                           const char* what) {
  std::uint32_t v = 0;
  auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
  if (part.empty() || ec != std::errc{} || end != part.data() + part.size() || v > max) {
    throw std::invalid_argument("invalid " + std::string(what) + " '" + std::string(whole) + "'");
  }
  return v;
}

}  // namespace

Ipv4 Ipv4::parse(std::string_view text) {
  std::uint32_t value = 0;
  std::string_view rest = text;
  for (int i = 0; i < 4; ++i) {
    std::size_t dot = rest.find('.');
    if ((i < 3) != (dot != std::string_view::npos)) {
      throw std::invalid_argument("invalid IPv4 address '" + std::string(text) + "'");
    }
    std::string_view part = i < 3 ? rest.substr(0, dot) : rest;
    value = (value << 8) | parse_number(part, 255, text, "IPv4 address");
    rest = i < 3 ? rest.substr(dot + 1) : std::string_view{};
  }
  return Ipv4{value};
}

std::string Ipv4::str() const {
  return std::to_string(value >> 24) + '.' + std::to_string((value >> 16) & 0xFF) + '.' +
         std::to_string((value >> 8) & 0xFF) + '.' + std::to_string(value & 0xFF);
}

Endpoint Endpoint::parse(std::string_view text) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    throw std::invalid_argument("invalid endpoint '" + std::string(text) + "' (want ip:port)");
  }
  Endpoint e;
  e.ip = Ipv4::parse(text.substr(0, colon));
  e.port = static_cast<std::uint16_t>(parse_number(text.substr(colon + 1), 65535, text, "port"));
  return e;
}

std::string Endpoint::str() const { return ip.str() + ':' + std::to_string(port); }

}  // namespace skysim::net
