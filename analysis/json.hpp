#pragma once
// JSON values for the files analysis exchanges with runs and shards (summary.json, JSON lines,
// compare.json, fork plans). Parsing and serialising are nlohmann-json's; this class only adds
// what the callers need on top: typed access whose error names the field ("sweep.seeds[]:
// expected an unsigned integer, found a string"), a missing key that names the key, and cheap
// copies (a value is a view into a shared, immutable document).
//
// Objects keep their keys sorted (nlohmann::json stores them in a std::map), so anything written
// from a Json is in one canonical order. Integers stay integers: a seed of 2^64 - 1 reads and
// writes exactly; doubles are written as the shortest text that reads back to the same double.
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace skysim::analysis {

class Json;
using JsonArray = std::vector<Json>;
using JsonObject = std::map<std::string, Json>;

class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Json {
 public:
  Json();  // null
  Json(std::nullptr_t) : Json() {}
  Json(bool b);
  Json(double d);
  Json(int i) : Json(static_cast<std::int64_t>(i)) {}
  Json(std::int64_t i);
  Json(std::uint64_t i);
  Json(const char* s) : Json(std::string(s)) {}
  Json(std::string s);
  Json(JsonArray a);
  Json(JsonObject o);

  bool is_null() const;
  bool is_bool() const;
  bool is_number() const;   // integer or floating point
  bool is_integer() const;  // written without a fraction or exponent, e.g. a seed
  bool is_string() const;
  bool is_array() const;
  bool is_object() const;

  // Typed access; `what` names the field in the error message when the type is wrong.
  bool as_bool(std::string_view what = "value") const;
  double as_number(std::string_view what = "value") const;
  std::int64_t as_int(std::string_view what = "value") const;
  std::uint64_t as_uint64(std::string_view what = "value") const;  // 0 .. 2^64 - 1, exactly
  const std::string& as_string(std::string_view what = "value") const;
  JsonArray as_array(std::string_view what = "value") const;    // views of the elements
  JsonObject as_object(std::string_view what = "value") const;  // views, keys sorted

  // Object member; throws JsonError naming the key when absent.
  Json at(const std::string& key) const;
  std::optional<Json> find(const std::string& key) const;  // nullopt when absent

  // Compact one-line text (for JSON lines) or indented text (for files people read).
  std::string dump() const;
  std::string dump_pretty() const;

  // Throws JsonError with nlohmann's line and column of the problem.
  static Json parse(std::string_view text);

 private:
  Json(std::shared_ptr<const nlohmann::json> root, const nlohmann::json* node)
      : root_(std::move(root)), node_(node) {}
  explicit Json(nlohmann::json&& value);
  static nlohmann::json build(const JsonArray& a);
  static nlohmann::json build(const JsonObject& o);
  const char* type_name() const;
  [[noreturn]] void wrong_type(std::string_view what, const char* want) const;

  std::shared_ptr<const nlohmann::json> root_;  // keeps the document alive
  const nlohmann::json* node_ = nullptr;        // this value inside *root_
};

// Shortest text that reads back to exactly `x` is not needed; a fixed format is: "%.17g"
// round-trips every double, so shards and single runs print identical bytes (CSV, tables).
std::string format_double(double x);

}  // namespace skysim::analysis
