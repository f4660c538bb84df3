#include <catch2/catch.hpp>
#include <cmath>

#include "analysis/json.hpp"

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

TEST_CASE("malformed JSON and wrong types give messages naming the problem") {
  CHECK_THROWS_WITH(Json::parse("{\"a\": 1,}"), Catch::Contains("offset"));
  CHECK_THROWS_WITH(Json::parse("[1, 2"), Catch::Contains("end of input"));
  CHECK_THROWS_WITH(Json::parse("{} x"), Catch::Contains("trailing"));
  auto j = Json::parse(R"({"n": "seven"})");
  CHECK_THROWS_WITH(j.at("n").as_number("n"), Catch::Contains("n: expected a number"));
  CHECK_THROWS_WITH(j.at("missing"), Catch::Contains("missing key \"missing\""));
  CHECK_THROWS_WITH(Json(2.5).as_int("seed"), Catch::Contains("integer"));
}
