#pragma once
// A small JSON value, reader and writer for the files analysis exchanges with runs and shards
// (summary.json, JSON lines, compare.json). Objects keep their keys sorted (std::map), so
// anything written from a Json is in one canonical order; numbers are written with "%.17g",
// which reads back to the identical double.
#include <cstdint>
#include <map>
#include <memory>
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
  enum class Type { null, boolean, number, string, array, object };

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool b) : type_(Type::boolean), b_(b) {}
  Json(double d) : type_(Type::number), d_(d) {}
  Json(int i) : Json(static_cast<double>(i)) {}
  Json(std::int64_t i) : Json(static_cast<double>(i)) {}
  Json(std::uint64_t i) : Json(static_cast<double>(i)) {}
  Json(const char* s) : type_(Type::string), s_(s) {}
  Json(std::string s) : type_(Type::string), s_(std::move(s)) {}
  Json(JsonArray a);
  Json(JsonObject o);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::null; }
  bool is_bool() const { return type_ == Type::boolean; }
  bool is_number() const { return type_ == Type::number; }
  bool is_string() const { return type_ == Type::string; }
  bool is_array() const { return type_ == Type::array; }
  bool is_object() const { return type_ == Type::object; }

  // Typed access; `what` names the field in the error message when the type is wrong.
  bool as_bool(std::string_view what = "value") const;
  double as_number(std::string_view what = "value") const;
  std::int64_t as_int(std::string_view what = "value") const;
  const std::string& as_string(std::string_view what = "value") const;
  const JsonArray& as_array(std::string_view what = "value") const;
  const JsonObject& as_object(std::string_view what = "value") const;

  // Object member; throws JsonError naming the key when absent.
  const Json& at(const std::string& key) const;
  const Json* find(const std::string& key) const;

  // Compact one-line text (for JSON lines) or indented text (for files people read).
  std::string dump() const;
  std::string dump_pretty() const;

  static Json parse(std::string_view text);

 private:
  void write(std::string& out, int indent, int depth) const;
  // A tagged record rather than std::variant: GCC 12 reports false "maybe-uninitialized"
  // warnings for recursive variants built from initializer lists.
  Type type_ = Type::null;
  bool b_ = false;
  double d_ = 0;
  std::string s_;
  std::shared_ptr<const JsonArray> a_;  // shared and immutable: copies are cheap
  std::shared_ptr<const JsonObject> o_;
};

// Shortest text that reads back to exactly `x` is not needed; a fixed format is: "%.17g"
// round-trips every double, so shards and single runs print identical bytes.
std::string format_double(double x);
std::string json_quote(std::string_view s);

}  // namespace skysim::analysis
