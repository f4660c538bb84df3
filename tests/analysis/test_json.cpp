#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "analysis/json.hpp"
#include "analysis/sweep.hpp"

using namespace skysim::analysis;

TEST_CASE("JSON documents round-trip with keys in canonical order") {
  auto j = Json::parse(R"({"b": [1, 2.5, true, null], "a": {"s": "x\"y\n\u00e9"}})");
  CHECK(j.dump() == R"({"a":{"s":"x\"y\n)" "\xc3\xa9" R"("},"b":[1,2.5,true,null]})");
  CHECK(Json::parse(j.dump()).dump() == j.dump());
  CHECK(Json::parse(j.dump_pretty()).dump() == j.dump());
}

TEST_CASE("numbers are written so that they read back to the same double") {
  for (double x : {0.1, 1.0 / 3.0, 1e-300, 123456789.123456789, -2.5e17}) {
    double back = Json::parse(Json(x).dump()).as_number();
    CHECK(back == x);
  }
  CHECK(Json(std::nan("")).dump() == "null");  // JSON has no NaN
}

TEST_CASE("integers stay integers: every uint64 seed round-trips exactly") {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1} << 53, (std::uint64_t{1} << 53) + 1,
                             (std::uint64_t{1} << 63) + 1, kMax - 1, kMax}) {
    Json j(seed);
    CHECK(j.dump() == std::to_string(seed));
    Json back = Json::parse(j.dump());
    CHECK(back.is_integer());
    CHECK(back.as_uint64("seed") == seed);
  }
  // 2^53 + 1 is the first integer a double cannot hold: a reader through doubles gets 2^53.
  CHECK(Json::parse("9007199254740993").as_uint64() == 9007199254740993ULL);
  CHECK(Json::parse("18446744073709551615").as_uint64() == kMax);
  CHECK_THROWS_WITH(Json::parse("-1").as_uint64("seed"), Catch::Contains("seed: expected an unsigned"));
  CHECK_THROWS_WITH(Json::parse("18446744073709551615").as_int("run"), Catch::Contains("too large"));
  // A double with no fraction is an integer only while it is exact.
  CHECK(Json::parse("7.0").as_uint64() == 7);
  CHECK_THROWS_WITH(Json::parse("1e17").as_int("seed"), Catch::Contains("expected an integer"));

  SweepSpec s;
  s.scenario = "x.yaml";
  s.seeds = parse_seeds("18446744073709551614..18446744073709551615");  // ends: no wrap-around
  REQUIRE(s.seeds.size() == 2);
  CHECK(SweepSpec::from_json(Json::parse(s.to_json().dump())).seeds == s.seeds);
  CHECK_THROWS_WITH(parse_seeds("18446744073709551616"), Catch::Contains("2^64-1"));
}

TEST_CASE("malformed JSON and wrong types give messages naming the problem") {
  CHECK_THROWS_WITH(Json::parse("{\"a\": 1,}"), Catch::Contains("line 1, column 9"));
  CHECK_THROWS_WITH(Json::parse("[1, 2"), Catch::Contains("end of input"));
  CHECK_THROWS_AS(Json::parse("{} x"), JsonError);
  auto j = Json::parse(R"({"n": "seven"})");
  CHECK_THROWS_WITH(j.at("n").as_number("n"), Catch::Contains("n: expected a number, found a string"));
  CHECK_THROWS_WITH(j.at("missing"), Catch::Contains("missing key \"missing\""));
  CHECK_THROWS_WITH(Json(2.5).as_int("seed"), Catch::Contains("integer"));
  CHECK_FALSE(j.find("missing").has_value());
}

TEST_CASE("views outlive the expression that made them") {
  // as_array/as_object return views sharing the document, so a temporary parent may go.
  JsonArray rows = Json::parse(R"({"t": {"rows": [{"x": 1}, {"x": 2}]}})").at("t").at("rows").as_array();
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].at("x").as_int() == 2);
  Json built(JsonObject{{"rows", Json(rows)}, {"n", Json(2)}});
  CHECK(built.dump() == R"({"n":2,"rows":[{"x":1},{"x":2}]})");
}
