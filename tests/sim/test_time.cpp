#include <catch2/catch.hpp>

#include "sim/time.hpp"

using namespace sim;

TEST_CASE("durations parse with units") {
  CHECK(parse_duration("600us") == 600 * kMicrosecond);
  CHECK(parse_duration("15ms") == 15 * kMillisecond);
  CHECK(parse_duration("30m") == 30 * kMinute);
  CHECK(parse_duration("4d") == 4 * kDay);
  CHECK(parse_duration("1.5s") == 1500 * kMillisecond);
  CHECK(parse_duration("0.1s") == 100 * kMillisecond);
  CHECK(parse_duration("1h30m") == 90 * kMinute);
  CHECK(parse_duration("0") == 0);
}

TEST_CASE("malformed durations are rejected with a clear message") {
  for (const char* bad : {"15 ms", "-3s", "", "15", "ms", "3parsecs", "1.s", "+5s", "1.0000000001s",
                          "99999999999999999999s", "300000d"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_duration(bad), TimeParseError);
  }
  CHECK_THROWS_WITH(parse_duration("15 ms"), Catch::Contains("no spaces"));
  CHECK_THROWS_WITH(parse_duration("-3s"), Catch::Contains("signed"));
}

TEST_CASE("durations format back to the shortest exact form") {
  CHECK(format_duration(90 * kSecond) == "1m30s");
  CHECK(format_duration(1500 * kMicrosecond) == "1.5ms");
  CHECK(format_duration(0) == "0s");
  CHECK(format_duration(4 * kDay) == "4d");
  for (Duration d : {Duration{1}, 600 * kMicrosecond, 61 * kSecond + 5, 3 * kDay + 7 * kHour}) {
    CHECK(parse_duration(format_duration(d)) == d);
  }
}

TEST_CASE("ISO-8601 dates round trip") {
  std::int64_t t = parse_iso8601_unix_ns("2026-04-06T17:00:00Z");
  CHECK(t == 1775494800LL * kSecond);
  CHECK(format_iso8601(t) == "2026-04-06T17:00:00Z");
  CHECK(parse_iso8601_unix_ns("2026-04-06") == parse_iso8601_unix_ns("2026-04-06T00:00:00Z"));
  CHECK(parse_iso8601_unix_ns("2026-04-06T19:00:00+02:00") == t);
  CHECK(format_iso8601(parse_iso8601_unix_ns("2026-04-03T22:16:07.944910324Z")) ==
        "2026-04-03T22:16:07.944910324Z");
  CHECK_THROWS_AS(parse_iso8601_unix_ns("2026-02-30"), TimeParseError);
  CHECK_THROWS_AS(parse_iso8601_unix_ns("2026-04-06T17:00"), TimeParseError);
  CHECK_THROWS_AS(parse_iso8601_unix_ns("April 6"), TimeParseError);
  CHECK_THROWS_AS(parse_iso8601_unix_ns("9999-12-31T23:59:59Z"), TimeParseError);  // int64 ns overflow
}
