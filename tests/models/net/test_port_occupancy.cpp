#include <catch2/catch.hpp>

#include "models/net/port_occupancy.hpp"

using skysim::net::PortOccupancy;

TEST_CASE("port occupancy finds the next free port, wrapping, in sparse and dense form") {
  PortOccupancy occ(100, 299);  // 200 ports: crosses the sparse limit and a 64-bit word edge
  CHECK(occ.free_ports() == 200);
  CHECK(*occ.next_free(150) == 150);
  for (int p = 150; p <= 299; ++p) {
    occ.add(static_cast<std::uint16_t>(p));
  }
  CHECK(occ.held_ports() == 150);
  CHECK(*occ.next_free(150) == 100);  // wrapped
  occ.add(100);
  occ.add(100);  // two sockets on one port (different destinations)
  CHECK(occ.count(100) == 2);
  CHECK(occ.held_ports() == 151);
  CHECK(*occ.next_free(290) == 101);
  for (int p = 101; p <= 149; ++p) {
    occ.add(static_cast<std::uint16_t>(p));
  }
  CHECK(occ.free_ports() == 0);
  CHECK_FALSE(occ.next_free(120).has_value());
  occ.remove(100);
  CHECK_FALSE(occ.next_free(120).has_value());  // still one socket on 100
  occ.remove(100);
  occ.remove(263);
  CHECK(*occ.next_free(120) == 263);
  CHECK(*occ.next_free(264) == 100);
  CHECK_THROWS_AS(occ.remove(100), std::logic_error);
  CHECK_THROWS_AS(occ.add(99), std::logic_error);
}

TEST_CASE("sparse port occupancy walks runs of held ports") {
  PortOccupancy occ(10, 19);
  for (std::uint16_t p : {10, 11, 12, 15, 18, 19}) {
    occ.add(p);
  }
  CHECK(*occ.next_free(10) == 13);
  CHECK(*occ.next_free(15) == 16);
  CHECK(*occ.next_free(18) == 13);  // 18, 19 held, wrap: 10, 11, 12 held
  std::uint32_t seen = 0;
  occ.for_each([&](std::uint16_t, std::uint32_t n) { seen += n; });
  CHECK(seen == 6);
}
