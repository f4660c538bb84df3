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
  CHECK_THROWS_AS(occ.add(0), std::logic_error);
  // A port outside the range may be held (the range changed under it): not searched, not free.
  const std::uint32_t in_range = occ.held_ports();
  occ.add(99);
  CHECK(occ.count(99) == 1);
  CHECK(occ.held_ports() == in_range);
}

TEST_CASE("port occupancy: a new range is searched from then on; what is held stays held") {
  // ip_local_port_range changed during a run (sysctl -w): dense and sparse alike.
  for (const int held : {10, 100}) {  // sparse, then past kSparseMax: dense
    INFO(held << " ports held");
    PortOccupancy occ(1000, 1999);
    for (int p = 1000; p < 1000 + held; ++p) occ.add(static_cast<std::uint16_t>(p));
    CHECK(occ.free_ports() == static_cast<std::uint32_t>(1000 - held));
    occ.set_window(1000 + held / 2, 1000 + held - 1);  // narrowed onto held ports only
    CHECK(occ.range() == static_cast<std::uint32_t>(held - held / 2));
    CHECK(occ.free_ports() == 0);
    CHECK_FALSE(occ.next_free(1000).has_value());
    occ.set_window(500, 2999);  // widened past both ends
    CHECK(occ.held_ports() == static_cast<std::uint32_t>(held));
    CHECK(occ.free_ports() == static_cast<std::uint32_t>(2500 - held));
    CHECK(*occ.next_free(1000) == 1000 + held);
    CHECK(*occ.next_free(2999) == 2999);
    occ.set_window(3000, 3009);  // away from every held port: they stay held, the range is free
    CHECK(occ.free_ports() == 10);
    CHECK_FALSE(occ.empty());
    CHECK(*occ.next_free(1000) == 3000);  // a start outside the range starts at its low end
    for (int p = 1000; p < 1000 + held; ++p) occ.remove(static_cast<std::uint16_t>(p));
    CHECK(occ.empty());
    CHECK_THROWS_AS(occ.set_window(10, 9), std::invalid_argument);
    CHECK_THROWS_AS(occ.set_window(0, 9), std::invalid_argument);
  }
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
