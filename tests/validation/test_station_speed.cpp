#include <catch2/catch.hpp>
#include <cstdio>

#include "validation/selftest.hpp"
#include "validation/semaphore_station.hpp"
#include "validation/confidence.hpp"

using namespace skysim::validation;

TEST_CASE("selftest probe", "[.probe]") {
  SelftestOptions o;
  o.quick = std::getenv("FULL") == nullptr;
  auto r = run_selftest(o);
  std::printf("%s", format_table(r.rows).c_str());
}
TEST_CASE("mm1 bias probe", "[.bias]") {
  OpenStationConfig c;
  c.servers = 1; c.arrival_rate = 70; c.service_mean = 10 * sim::kMillisecond;
  c.warmup = 20 * sim::kSecond; c.length = 400 * sim::kSecond;
  std::vector<double> w, p, u;
  for (int s = 1; s <= 100; ++s) {
    auto r = run_open_station(c, 5000 + s);
    w.push_back(r.mean_wait_s); p.push_back(r.waited_fraction);
    u.push_back(1 - r.state_fraction[0]);
  }
  auto a = replication_interval(w, 0.95), b = replication_interval(p, 0.95), d = replication_interval(u, 0.95);
  std::printf("W %g +- %g  P %g +- %g  busy %g +- %g\n", a.mean, a.half_width, b.mean, b.half_width, d.mean, d.half_width);
}
