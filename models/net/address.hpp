#pragma once
// IPv4 addresses and TCP endpoints as the kernel's socket table sees them.
#include <cstdint>
#include <string>
#include <string_view>

namespace skysim::net {

// Host byte order: 127.0.0.1 is 0x7F000001.
struct Ipv4 {
  std::uint32_t value = 0;

  static constexpr Ipv4 of(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
    return Ipv4{(std::uint32_t{a} << 24) | (std::uint32_t{b} << 16) | (std::uint32_t{c} << 8) |
                std::uint32_t{d}};
  }
  // "127.32.0.1"; throws std::invalid_argument naming the text when it is not a dotted quad.
  static Ipv4 parse(std::string_view text);

  // 127.0.0.0/8 is loopback as a whole (RFC 3330; domain.md §2.6).
  constexpr bool is_loopback() const { return (value >> 24) == 127; }
  std::string str() const;

  friend constexpr bool operator==(Ipv4, Ipv4) = default;
  friend constexpr auto operator<=>(Ipv4, Ipv4) = default;
};

inline constexpr Ipv4 kLoopback = Ipv4::of(127, 0, 0, 1);

struct Endpoint {
  Ipv4 ip;
  std::uint16_t port = 0;

  // "127.0.0.1:11211"
  static Endpoint parse(std::string_view text);
  std::string str() const;

  friend constexpr bool operator==(Endpoint, Endpoint) = default;
  friend constexpr auto operator<=>(Endpoint, Endpoint) = default;
};

}  // namespace skysim::net
