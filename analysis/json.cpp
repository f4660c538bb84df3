#include "analysis/json.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

namespace skysim::analysis {

namespace {

const nlohmann::json& null_value() {
  static const nlohmann::json null;
  return null;
}

// Doubles with no fraction are accepted where an integer is expected only while they are
// exact (|x| < 2^53), so a seed that went through a double somewhere is refused, not rounded.
constexpr double kExactDouble = 9007199254740992.0;

}  // namespace

Json::Json() : node_(&null_value()) {}
Json::Json(nlohmann::json&& value)
    : root_(std::make_shared<const nlohmann::json>(std::move(value))), node_(root_.get()) {}
Json::Json(bool b) : Json(nlohmann::json(b)) {}
Json::Json(double d) : Json(nlohmann::json(d)) {}
Json::Json(std::int64_t i) : Json(nlohmann::json(i)) {}
Json::Json(std::uint64_t i) : Json(nlohmann::json(i)) {}
Json::Json(std::string s) : Json(nlohmann::json(std::move(s))) {}

nlohmann::json Json::build(const JsonArray& a) {
  auto array = nlohmann::json::array();
  for (const auto& e : a) {
    array.push_back(*e.node_);
  }
  return array;
}

nlohmann::json Json::build(const JsonObject& o) {
  auto object = nlohmann::json::object();
  for (const auto& [k, v] : o) {
    object[k] = *v.node_;
  }
  return object;
}

Json::Json(JsonArray a) : Json(build(a)) {}
Json::Json(JsonObject o) : Json(build(o)) {}

bool Json::is_null() const { return node_->is_null(); }
bool Json::is_bool() const { return node_->is_boolean(); }
bool Json::is_number() const { return node_->is_number(); }
bool Json::is_integer() const { return node_->is_number_integer(); }
bool Json::is_string() const { return node_->is_string(); }
bool Json::is_array() const { return node_->is_array(); }
bool Json::is_object() const { return node_->is_object(); }

const char* Json::type_name() const {
  if (node_->is_number_integer()) {
    return "an integer";
  }
  switch (node_->type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_float: return "a number";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::object: return "an object";
    default: return "a value of another kind";
  }
}

void Json::wrong_type(std::string_view what, const char* want) const {
  throw JsonError(std::string(what) + ": expected " + want + ", found " + type_name());
}

bool Json::as_bool(std::string_view what) const {
  if (!is_bool()) {
    wrong_type(what, "a boolean");
  }
  return node_->get<bool>();
}

double Json::as_number(std::string_view what) const {
  if (!is_number()) {
    wrong_type(what, "a number");
  }
  return node_->get<double>();
}

std::int64_t Json::as_int(std::string_view what) const {
  if (node_->is_number_unsigned()) {
    auto u = node_->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw JsonError(std::string(what) + ": " + std::to_string(u) + " is too large");
    }
    return static_cast<std::int64_t>(u);
  }
  if (node_->is_number_integer()) {
    return node_->get<std::int64_t>();
  }
  double d = as_number(what);
  if (d != std::floor(d) || std::abs(d) >= kExactDouble) {
    throw JsonError(std::string(what) + ": expected an integer, found " + format_double(d));
  }
  return static_cast<std::int64_t>(d);
}

std::uint64_t Json::as_uint64(std::string_view what) const {
  if (node_->is_number_unsigned()) {
    return node_->get<std::uint64_t>();
  }
  std::int64_t i = as_int(what);
  if (i < 0) {
    throw JsonError(std::string(what) + ": expected an unsigned integer, found " +
                    std::to_string(i));
  }
  return static_cast<std::uint64_t>(i);
}

const std::string& Json::as_string(std::string_view what) const {
  if (!is_string()) {
    wrong_type(what, "a string");
  }
  return node_->get_ref<const std::string&>();
}

JsonArray Json::as_array(std::string_view what) const {
  if (!is_array()) {
    wrong_type(what, "an array");
  }
  JsonArray out;
  out.reserve(node_->size());
  for (const auto& e : *node_) {
    out.push_back(Json(root_, &e));
  }
  return out;
}

JsonObject Json::as_object(std::string_view what) const {
  if (!is_object()) {
    wrong_type(what, "an object");
  }
  JsonObject out;
  for (const auto& [k, v] : node_->items()) {
    out.emplace(k, Json(root_, &v));
  }
  return out;
}

std::optional<Json> Json::find(const std::string& key) const {
  if (!is_object()) {
    wrong_type("object", "an object");
  }
  auto it = node_->find(key);
  if (it == node_->end()) {
    return std::nullopt;
  }
  return Json(root_, &*it);
}

Json Json::at(const std::string& key) const {
  auto j = find(key);
  if (!j) {
    throw JsonError("missing key \"" + key + "\"");
  }
  return *j;
}

// Invalid UTF-8 (a worker's last log line may hold any bytes) is replaced, not an exception.
std::string Json::dump() const {
  return node_->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string Json::dump_pretty() const {
  return node_->dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Json Json::parse(std::string_view text) {
  try {
    return Json(nlohmann::json::parse(text.begin(), text.end()));
  } catch (const nlohmann::json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 9: ..." without the tag.
    std::string why = e.what();
    auto tag_end = why.find("] ");
    throw JsonError("JSON " + (tag_end == std::string::npos ? why : why.substr(tag_end + 2)));
  }
}

std::string format_double(double x) {
  if (std::isnan(x)) {
    return "nan";
  }
  if (std::isinf(x)) {
    return x > 0 ? "inf" : "-inf";
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

}  // namespace skysim::analysis
