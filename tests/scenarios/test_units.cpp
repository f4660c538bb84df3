#include <catch2/catch.hpp>
#include <cmath>

#include "scenarios/distributions.hpp"
#include "scenarios/units.hpp"

using namespace skysim::scenarios;

TEST_CASE("sizes, rates, counts and percentages parse to base units") {
  CHECK(parse_size("32GiB") == 32LL << 30);
  CHECK(parse_size("64KiB") == 65536);
  CHECK(parse_size("1.5MB") == 1'500'000);
  CHECK(parse_size("512") == 512);
  CHECK(parse_size("512B") == 512);
  CHECK(parse_rate("2.5/s") == Approx(2.5));
  CHECK(parse_rate("20k/s") == Approx(20000));
  CHECK(parse_rate("100/min") == Approx(100.0 / 60));
  CHECK(parse_rate("3/h") == Approx(3.0 / 3600));
  CHECK(parse_count("15k") == 15000);
  CHECK(parse_count("2M") == 2'000'000);
  CHECK(parse_count("1_000") == 1000);
  CHECK(parse_count("1.5k") == 1500);
  CHECK(parse_percent("99.9%") == Approx(0.999));
  CHECK(parse_percent("0.25") == Approx(0.25));
  CHECK(parse_int("-3") == -3);
  CHECK(parse_bool("yes"));
  CHECK_FALSE(parse_bool("off"));
  CHECK(parse_date_or_offset("+90m", 1000) == 1000 + 90 * sim::kMinute);
  CHECK(parse_date_or_offset("1970-01-01T00:00:01Z", 0) == sim::kSecond);
}

TEST_CASE("bad units are rejected with what was expected") {
  CHECK_THROWS_WITH(parse_size("5 parsecs"), Catch::Contains("unknown size unit"));
  CHECK_THROWS_WITH(parse_size("-1KiB"), Catch::Contains("negative size"));
  CHECK_THROWS_WITH(parse_rate("5"), Catch::Contains("no time unit"));
  CHECK_THROWS_WITH(parse_count("1.5"), Catch::Contains("not a whole number"));
  CHECK_THROWS_WITH(parse_count("99999999999999999999"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_percent("150%"), Catch::Contains("above 100%"));
  CHECK_THROWS_WITH(parse_int("4x"), Catch::Contains("not an integer"));
  CHECK_THROWS_WITH(parse_bool("maybe"), Catch::Contains("not a boolean"));
  CHECK_THROWS_AS(parse_duration("5 minutes"), UnitError);
  try {
    parse_rate("1/fortnight");
    FAIL("accepted a fortnight");
  } catch (const UnitError& e) {
    CHECK(e.expected().find("2.5/s") != std::string::npos);
  }
}

TEST_CASE("canonical texts parse back to the same value") {
  for (std::int64_t b : {0LL, 1LL, 1023LL, 1024LL, 3LL << 30, 1'500'000LL}) {
    CHECK(parse_size(format_size(b)) == b);
  }
  for (double r : {0.5, 2.5, 20000.0, 1.0 / 3}) CHECK(parse_rate(format_rate(r)) == r);
  CHECK(parse_percent(format_percent(0.999)) == Approx(0.999));
}

TEST_CASE("canonical rates print as a person writes them") {
  // "%.1g" once printed 50/s as "5e+01/s"
  CHECK(format_rate(50) == "50/s");
  CHECK(format_rate(20000) == "20000/s");
  CHECK(format_rate(2.5) == "2.5/s");
  CHECK(format_rate(0.1) == "0.1/s");
  CHECK(format_rate(1.0 / 3) == "0.3333333333333333/s");
  CHECK(format_rate(1e7) == "1e+07/s");  // shorter than 10000000
  CHECK(parse_rate(format_rate(1e7)) == 1e7);
}

TEST_CASE("distributions sample with their parameters and print back") {
  sim::Rng rng(42);
  auto q = sim::Quantity::Duration;
  SECTION("exponential mean") {
    auto d = parse_distribution_text("{exponential: {mean: 2ms}}", q);
    double sum = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) sum += d->sample(rng);
    // sd of the mean = 2ms / sqrt(n) = 4.5us; 5 sd
    CHECK(std::fabs(sum / n - 2e6) < 5 * 2e6 / std::sqrt(n));
    CHECK(d->to_yaml() == "{exponential: {mean: 2ms}}");
  }
  SECTION("lognormal from median and p99") {
    auto d = parse_distribution_text("{lognormal: {median: 600us, p99: 15ms}}", q);
    std::vector<double> v;
    for (int i = 0; i < 100000; ++i) v.push_back(d->sample(rng));
    std::sort(v.begin(), v.end());
    CHECK(v[50000] == Approx(600e3).epsilon(0.03));
    CHECK(v[99000] == Approx(15e6).epsilon(0.08));
    CHECK(parse_distribution_text(d->to_yaml(), q)->to_yaml() == d->to_yaml());
  }
  SECTION("uniform counts are whole and inclusive") {
    auto d = parse_distribution_text("{uniform: [1, 50]}", sim::Quantity::Number);
    bool saw_lo = false, saw_hi = false;
    for (int i = 0; i < 20000; ++i) {
      double x = d->sample(rng);
      REQUIRE(x == std::floor(x));
      REQUIRE(x >= 1);
      REQUIRE(x <= 50);
      saw_lo = saw_lo || x == 1;
      saw_hi = saw_hi || x == 50;
    }
    CHECK(saw_lo);
    CHECK(saw_hi);
  }
  SECTION("empirical, pareto and constant") {
    auto e = parse_distribution_text("{empirical: [1ms, 2ms, 2ms, 40ms]}", q);
    CHECK(e->mean() == Approx(11.25e6));
    auto p = parse_distribution_text("{pareto: {scale: 1KiB, shape: 1.5}}", sim::Quantity::Size);
    CHECK(p->mean() == Approx(3 * 1024.0));
    for (int i = 0; i < 1000; ++i) REQUIRE(p->sample(rng) >= 1024);
    auto c = parse_distribution_text("{constant: 5ms}", q);
    CHECK(c->sample_duration(rng) == 5 * sim::kMillisecond);
    CHECK(c->to_yaml() == "{constant: 5ms}");
  }
  SECTION("errors") {
    CHECK_THROWS_WITH(parse_distribution_text("{gaussian: {mean: 1ms}}", q),
                      Catch::Contains("unknown distribution 'gaussian'"));
    CHECK_THROWS_WITH(parse_distribution_text("{exponential: {mean: 1ms, sd: 2}}", q),
                      Catch::Contains("unknown parameter 'sd'"));
    CHECK_THROWS_AS(parse_distribution_text("{constant: 5GiB}", q), UnitError);
    CHECK_THROWS_WITH(parse_distribution_text("{uniform: [5, 1]}", sim::Quantity::Number),
                      Catch::Contains("lo is above hi"));
  }
}
